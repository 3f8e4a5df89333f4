import base64, os, requests

# protected.pdf without its password (the owner password, or a user password that allows changes).
pdf = base64.b64encode(open("protected.pdf", "rb").read()).decode()
body = {"document": {"base64": pdf, "password": "owner-secret"}}
response = requests.post("http://localhost:3000/v1/unprotect", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, json=body, timeout=60)
response.raise_for_status()
open("unprotected.pdf", "wb").write(base64.b64decode(response.json()["document"]["base64"]))
