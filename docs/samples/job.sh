jq -n --arg doc "$(base64 < examples/files/contract.pdf | tr -d '\n')" '{document: {base64: $doc},
  signer: {name: "Ada Lovelace", email: "ada@example.com"},
  auditTrail: [{type: "submit", timestamp: "2026-11-22T09:58:00Z"}]}' > sign.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/sign -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Prefer: respond-async" -H "Content-Type: application/json" -d @sign.json -o job.json &&
  until curl --fail-with-body -sS "http://localhost:3000/v1/jobs/$(jq -r .id job.json)" -H "Authorization: Bearer $SIGNET_KEY" -o job.json &&
    jq -e '.status != "queued" and .status != "running"' job.json > /dev/null; do sleep 1; done &&
  curl --fail-with-body -sS "$(jq -r .result.url job.json)" | jq -r .document.base64 | base64 -d > signed-by-job.pdf
