import base64, os, requests

# B-LTA renewal: fresh validation data and a document timestamp (needs SIGNET_TSA_URL on the server).
pdf = base64.b64encode(open("signed.pdf", "rb").read()).decode()
response = requests.post("http://localhost:3000/v1/timestamp", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, json={"document": {"base64": pdf}}, timeout=120)
response.raise_for_status()
open("timestamped.pdf", "wb").write(base64.b64decode(response.json()["document"]["base64"]))
