import requests

response = requests.get("http://localhost:3000/docs", timeout=30)
response.raise_for_status()
open("signet-docs.html", "w", encoding="utf-8").write(response.text)
