import os, requests

response = requests.post(f"http://localhost:3000/v1/jobs/{os.environ['JOB_ID']}/redeliver", headers={"Authorization": f"Bearer {os.environ['SIGNET_KEY']}"}, timeout=30)
response.raise_for_status()
print(response.json())
