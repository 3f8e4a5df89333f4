import os, requests
import base64

docx = base64.b64encode(open("examples/files/template.docx", "rb").read()).decode()
response = requests.post("http://localhost:3000/v1/annotate", params={"to": "pdf"}, headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, timeout=120, json={
    "document": {"base64": docx},
    "fields": [
        {"id": "customer-name", "type": "text", "value": "Ada Lovelace"},
        {"group": "company", "type": "text", "value": "Analytical Engines Ltd"},
        {"id": "items", "type": "table", "value": [["Difference engine", "1", "17,000.00"]]},
    ],
})
response.raise_for_status()
data_uri = response.json()["document"]["base64"]  # data:application/pdf;base64,...
open("filled.pdf", "wb").write(base64.b64decode(data_uri.split(",", 1)[1]))
