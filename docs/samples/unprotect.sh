# protected.pdf without its password (the owner password, or a user password that allows changes).
jq -n --arg doc "$(base64 < protected.pdf | tr -d '\n')" '{document: {base64: $doc, password: "owner-secret"}}' > unprotect.json
curl --fail-with-body -sS -X POST http://localhost:3000/v1/unprotect -H "Authorization: Bearer $SIGNET_KEY" \
  -H "Content-Type: application/json" -d @unprotect.json -o unprotected.json &&
  jq -r .document.base64 unprotected.json | base64 -d > unprotected.pdf
