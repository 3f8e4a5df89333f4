import os, requests
import base64

docx = base64.b64encode(open("examples/files/template.docx", "rb").read()).decode()
response = requests.post("http://localhost:3000/v1/annotate/fields", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, json={"document": {"base64": docx}}, timeout=60)
response.raise_for_status()
print([field["ids"] or field["group"] for field in response.json()["fields"]])
