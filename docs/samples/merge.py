import os, requests
import base64

pdf = base64.b64encode(open("examples/files/contract.pdf", "rb").read()).decode()
response = requests.post("http://localhost:3000/v1/merge", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, timeout=120, json={
    "documents": [
        {"document": {"base64": pdf}, "title": "Contract"},
        {"document": {"base64": pdf}, "pages": "1", "title": "Copy"},
    ],
})
response.raise_for_status()
open("merged.pdf", "wb").write(base64.b64decode(response.json()["document"]["base64"]))
