jq -n --arg doc "$(base64 < examples/files/template.docx | tr -d '\n')" '{document: {base64: $doc}}' > fields.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/annotate/fields -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @fields.json | jq -c '.fields[] | {ids, group, kind}'
