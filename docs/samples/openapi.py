import requests

response = requests.get("http://localhost:3000/openapi.json", timeout=30)
response.raise_for_status()
open("openapi.json", "w", encoding="utf-8").write(response.text)
