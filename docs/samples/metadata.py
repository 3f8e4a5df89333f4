import base64, os, requests

pdf = base64.b64encode(open("examples/files/contract.pdf", "rb").read()).decode()
response = requests.post(
    "http://localhost:3000/v1/metadata",
    headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"},
    json={"document": {"base64": pdf}, "set": {"title": "Master services agreement", "author": "Ada Lovelace", "custom": {"ContractId": "C-42"}}},
    timeout=120,
)
response.raise_for_status()
metadata = response.json()["metadata"]
print(metadata["title"], metadata["author"], metadata["custom"])
