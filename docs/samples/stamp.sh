jq -n --arg doc "$(base64 < examples/files/contract.pdf | tr -d '\n')" '{document: {base64: $doc},
  text: {value: "CONFIDENTIAL", size: 60, color: "#C0392B"}, opacity: 0.3, rotation: 45}' > stamp.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/stamp -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @stamp.json -o answer.json &&
  jq -r .document.base64 answer.json | base64 -d > stamped.pdf
