import requests

response = requests.get("http://localhost:3000/", timeout=30)
response.raise_for_status()
print(response.json())
