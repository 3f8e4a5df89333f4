import requests

response = requests.get("http://localhost:3000/v1/verify/crl", timeout=30)
response.raise_for_status()
open("signet-root.crl", "wb").write(response.content)
