jq -n --arg a "$(base64 < examples/files/contract.pdf | tr -d '\n')" --arg b "$(base64 < examples/files/contract.pdf | tr -d '\n')" \
  '{documents: [{document: {base64: $a}, title: "Contract"}, {document: {base64: $b}, pages: "1", title: "Copy"}]}' > merge.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/merge -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @merge.json -o answer.json &&
  jq -r .document.base64 answer.json | base64 -d > merged.pdf
