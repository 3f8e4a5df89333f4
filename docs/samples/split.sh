jq -n --arg doc "$(base64 < examples/files/contract.pdf | tr -d '\n')" '{document: {base64: $doc}, every: 1}' > split.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/split -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @split.json -o parts.zip
# Or keep each part as an upload of your key: pass parts[i].upload as document.upload to sign, merge...
jq '. + {output: "uploads"}' split.json > split-uploads.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/split -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @split-uploads.json | jq -r '.parts[] | "\(.upload) pages \(.pages | join(","))"'
