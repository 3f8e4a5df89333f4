# B-LTA renewal: fresh validation data and a document timestamp over signed.pdf (needs SIGNET_TSA_URL on the server).
jq -n --arg doc "$(base64 < signed.pdf | tr -d '\n')" '{document: {base64: $doc}}' > timestamp.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/timestamp -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @timestamp.json -o stamped.json &&
  jq -r .document.base64 stamped.json | base64 -d > timestamped.pdf
