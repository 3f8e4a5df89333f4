import base64, os, requests

pdf = base64.b64encode(open("examples/files/contract.pdf", "rb").read()).decode()
response = requests.post(
    "http://localhost:3000/v1/stamp",
    headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"},
    json={"document": {"base64": pdf}, "text": {"value": "CONFIDENTIAL", "size": 60, "color": "#C0392B"}, "opacity": 0.3, "rotation": 45},
    timeout=120,
)
response.raise_for_status()
answer = response.json()
open("stamped.pdf", "wb").write(base64.b64decode(answer["document"]["base64"]))
print(answer["mode"], answer["pages"])
