import base64, os, requests

# contract.pdf encrypted AES-256: "open-sesame" opens it, copying text is not allowed.
pdf = base64.b64encode(open("contract.pdf", "rb").read()).decode()
body = {"document": {"base64": pdf}, "userPassword": "open-sesame", "ownerPassword": "owner-secret", "permissions": {"copy": False}}
response = requests.post("http://localhost:3000/v1/protect", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, json=body, timeout=60)
response.raise_for_status()
open("protected.pdf", "wb").write(base64.b64decode(response.json()["document"]["base64"]))
