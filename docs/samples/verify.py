import base64, requests

pdf = base64.b64encode(open("signed.pdf", "rb").read()).decode()
response = requests.post("http://localhost:3000/v1/verify", json={"document": {"base64": pdf}}, timeout=60)
response.raise_for_status()
report = response.json()
print(report["valid"], report["reason"])
