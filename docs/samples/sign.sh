jq -n --arg doc "$(base64 < examples/files/contract.pdf | tr -d '\n')" '{document: {base64: $doc},
  signer: {name: "Ada Lovelace", email: "ada@example.com"},
  auditTrail: [{type: "submit", timestamp: "2026-11-22T09:58:00Z"}]}' > sign.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/sign -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @sign.json -o answer.json &&
  jq -r .document.base64 answer.json | base64 -d > signed.pdf
