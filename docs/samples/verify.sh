jq -n --arg doc "$(base64 < signed.pdf | tr -d '\n')" '{document: {base64: $doc}}' > verify.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/verify -H "Content-Type: application/json" -d @verify.json | jq -c '{valid, reason}'
