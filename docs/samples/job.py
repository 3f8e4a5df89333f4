import base64, os, time, requests

headers = {"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}
with open("examples/files/contract.pdf", "rb") as file:
    body = {
        "document": {"base64": base64.b64encode(file.read()).decode()},
        "signer": {"name": "Ada Lovelace", "email": "ada@example.com"},
        "auditTrail": [{"type": "submit", "timestamp": "2026-11-22T09:58:00Z"}],
    }
submitted = requests.post("http://localhost:3000/v1/sign", json=body, headers={**headers, "Prefer": "respond-async"}, timeout=30)
submitted.raise_for_status()
job = submitted.json()
while job["status"] in ("queued", "running"):
    time.sleep(int(submitted.headers.get("Retry-After", "1")))
    read = requests.get(f"http://localhost:3000/v1/jobs/{job['id']}", headers=headers, timeout=30)
    read.raise_for_status()
    job = read.json()
if job["status"] != "succeeded":
    raise SystemExit(f"job {job['status']}: {job.get('error')}")
answer = requests.get(job["result"]["url"], timeout=60)
answer.raise_for_status()
with open("signed-by-job.pdf", "wb") as file:
    file.write(base64.b64decode(answer.json()["document"]["base64"]))
print(job["id"], job["status"])
