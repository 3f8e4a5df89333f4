import requests

response = requests.get("http://localhost:3000/v1/health", timeout=30)
response.raise_for_status()
print(response.json())
