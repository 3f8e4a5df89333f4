import os, requests

response = requests.delete(f"http://localhost:3000/v1/keys/{os.environ['KEY_ID']}", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, timeout=30)
response.raise_for_status()
print(response.json())
