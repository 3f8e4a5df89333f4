jq -n --arg doc "$(base64 < examples/files/contract.pdf | tr -d '\n')" '{document: {base64: $doc},
  set: {title: "Master services agreement", author: "Ada Lovelace", custom: {ContractId: "C-42"}}}' > metadata.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/metadata -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @metadata.json -o answer.json &&
  jq -c '.metadata | {title, author, custom}' answer.json
