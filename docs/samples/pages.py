import os, requests
import base64

pdf = base64.b64encode(open("examples/files/contract.pdf", "rb").read()).decode()
response = requests.post("http://localhost:3000/v1/pages", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, timeout=120, json={
    "document": {"base64": pdf},
    "operations": [{"op": "rotate", "pages": "1-", "degrees": 90}, {"op": "select", "pages": "1"}],
})
response.raise_for_status()
open("pages.pdf", "wb").write(base64.b64decode(response.json()["document"]["base64"]))
