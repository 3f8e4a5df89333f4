import requests

response = requests.get("http://localhost:3000/v1/auth/register?email=me@example.com", timeout=30)
response.raise_for_status()
print(response.json())
