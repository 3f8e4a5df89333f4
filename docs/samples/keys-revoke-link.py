import os, requests

response = requests.get("http://localhost:3000/v1/keys/revoke", params={"token": os.environ["REVOKE_TOKEN"]}, timeout=30)
response.raise_for_status()
print(response.text)
