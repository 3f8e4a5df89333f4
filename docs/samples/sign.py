import os, requests
import base64

pdf = base64.b64encode(open("examples/files/contract.pdf", "rb").read()).decode()
response = requests.post("http://localhost:3000/v1/sign", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, timeout=120, json={
    "document": {"base64": pdf},
    "signer": {"name": "Ada Lovelace", "email": "ada@example.com"},
    "auditTrail": [{"type": "submit", "timestamp": "2026-11-22T09:58:00Z"}],
})
response.raise_for_status()
open("signed.pdf", "wb").write(base64.b64decode(response.json()["document"]["base64"]))
