import requests

# 123456: the code from the e-mail. The key is shown once: keep it.
response = requests.get("http://localhost:3000/v1/auth/verify", params={"email": "me@example.com", "code": "123456"}, timeout=30)
response.raise_for_status()
print(response.json()["key"])
