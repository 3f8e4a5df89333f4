import os, requests
import base64

pdf = base64.b64encode(open("examples/files/contract.pdf", "rb").read()).decode()
response = requests.post("http://localhost:3000/v1/split", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, timeout=120, json={
    "document": {"base64": pdf},
    "every": 1,
})
response.raise_for_status()
open("parts.zip", "wb").write(response.content)
