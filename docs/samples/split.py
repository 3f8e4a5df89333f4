import os, requests
import base64

pdf = base64.b64encode(open("examples/files/contract.pdf", "rb").read()).decode()


def split(output):
    response = requests.post("http://localhost:3000/v1/split", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, timeout=120, json={
        "document": {"base64": pdf},
        "every": 1,
        "output": output,
    })
    response.raise_for_status()
    return response


open("parts.zip", "wb").write(split("zip").content)
# Or keep each part as an upload of your key: pass parts[i]["upload"] as document.upload to sign, merge...
for part in split("uploads").json()["parts"]:
    print(part["upload"], "pages", ",".join(map(str, part["pages"])))
