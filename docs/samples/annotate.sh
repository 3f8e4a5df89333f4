jq -n --arg doc "$(base64 < examples/files/template.docx | tr -d '\n')" '{document: {base64: $doc}, fields: [
  {id: "customer-name", type: "text", value: "Ada Lovelace"},
  {group: "company", type: "text", value: "Analytical Engines Ltd"},
  {id: "agree", type: "checkbox", value: "true"}]}' > annotate.json
curl --fail-with-body -sS -X POST "http://localhost:3000/v1/annotate?to=pdf" -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @annotate.json -o answer.json &&
  jq -r '.document.base64 | sub("^data:[^,]*,"; "")' answer.json | base64 -d > filled.pdf
