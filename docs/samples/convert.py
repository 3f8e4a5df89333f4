import os, requests

with open("examples/files/contract.docx", "rb") as docx:
    response = requests.post("http://localhost:3000/v1/convert", params={"from": "docx"}, headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"},
                             files={"file": ("contract.docx", docx)}, timeout=120)
response.raise_for_status()
open("contract.pdf", "wb").write(response.content)
