jq -n --arg doc "$(base64 < examples/files/contract.pdf | tr -d '\n')" \
  '{document: {base64: $doc}, operations: [{op: "rotate", pages: "1-", degrees: 90}, {op: "select", pages: "1"}]}' > pages.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/pages -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @pages.json -o answer.json &&
  jq -r .document.base64 answer.json | base64 -d > pages.pdf
