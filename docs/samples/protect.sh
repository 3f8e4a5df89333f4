# contract.pdf encrypted AES-256: "open-sesame" opens it, copying text is not allowed.
jq -n --arg doc "$(base64 < contract.pdf | tr -d '\n')" \
  '{document: {base64: $doc}, userPassword: "open-sesame", ownerPassword: "owner-secret", permissions: {copy: false}}' > protect.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/protect -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @protect.json -o protected.json &&
  jq -r .document.base64 protected.json | base64 -d > protected.pdf
