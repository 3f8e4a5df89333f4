#!/usr/bin/env bash
# Signet walk-through with curl and jq: key by e-mail code, sign a PDF and a DOCX, fill a template
# to DOCX and to PDF, convert a DOCX, verify a signature.
#
#   examples/walkthrough.sh                                   # against http://localhost:3000 (npm start)
#   SIGNET_URL=https://api.example.com SIGNET_EMAIL=me@example.com SIGNET_CODE=123456 examples/walkthrough.sh
#   PORT=3100 SIGNET_SES_PORT=8100 examples/walkthrough.sh      # a local server started with those
#
# Locally the code is read from the SES stand-in (SIGNET_SES_URL, default http://127.0.0.1:8005);
# against a deployed API run once to get the mail, then again with SIGNET_CODE, or pass SIGNET_KEY.
# Locally the key is kept in SIGNET_KEY_FILE (default .signet/example-key) and reused while the
# server accepts it (GET /v1/keys answers 200), so repeated runs need no new code.
# Results go to SIGNET_OUT (default ${TMPDIR:-/tmp}/signet-walkthrough).
set -euo pipefail

# The same variables npm start reads pick the local addresses, unless SIGNET_URL / SIGNET_SES_URL say otherwise.
BASE="${SIGNET_URL:-http://localhost:${PORT:-3000}}"
SES="${SIGNET_SES_URL:-http://127.0.0.1:${SIGNET_SES_PORT:-8005}}"
EMAIL="${SIGNET_EMAIL:-walkthrough@example.com}"
OUT="${SIGNET_OUT:-${TMPDIR:-/tmp}/signet-walkthrough}"
FILES="$(cd "$(dirname "$0")" && pwd)/files"
mkdir -p "$OUT"
for tool in curl jq base64; do command -v "$tool" >/dev/null || { echo "needs $tool" >&2; exit 1; }; done

# call METHOD PATH [curl args...]: prints the body; on 501 stops cleanly, on any other error prints
# Signet's error (code, message, details) and fails.
call() {
  local method="$1" path="$2"; shift 2
  local body status
  body="$(mktemp)"
  status="$(curl -sS -o "$body" -w '%{http_code}' -X "$method" "$BASE$path" "$@" 2>/dev/null)" || {
    [ "${status:-000}" = 000 ] && { echo "no Signet at $BASE: run npm start (or set SIGNET_URL, or PORT as npm start got it)" >&2; rm -f "$body"; exit 1; }
  }
  if [ "$status" = 501 ]; then
    echo "!! $method ${path%%\?*} is not available on this server yet (501 NOT_IMPLEMENTED); stopping here." >&2
    rm -f "$body"; exit 2
  fi
  if [ "$status" -ge 400 ]; then
    echo "!! $method ${path%%\?*} failed with $status:" >&2
    jq -r '"\(.code): \(.message)", (.details // [] | .[] | "   \(.field): \(.issue)")' "$body" >&2 || cat "$body" >&2
    rm -f "$body"; exit 1
  fi
  cat "$body"; rm -f "$body"
}
json() { jq -c "$@"; }
b64() { base64 -w0 "$1"; }

echo "-> health"
call GET /v1/health | jq -r '"   \(.status), version \(.version)"'

KEY="${SIGNET_KEY:-}"
KEY_FILE="${SIGNET_KEY_FILE-.signet/example-key}"
if [ -z "$KEY" ] && [ -z "${SIGNET_CODE:-}" ] && [ -n "$KEY_FILE" ] && [ -s "$KEY_FILE" ]; then
  KEPT="$(tr -d '[:space:]' < "$KEY_FILE")"
  if [ "$(curl -sS -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $KEPT" "$BASE/v1/keys")" = 200 ]; then
    KEY="$KEPT"
    echo "-> reusing the key ${KEY:0:8}... kept in $KEY_FILE"
  fi
fi
if [ -z "$KEY" ]; then
  echo "-> register"
  call GET "/v1/auth/register?email=$(jq -rn --arg e "$EMAIL" '$e|@uri')" | jq -r '"   \(.message)"'
  CODE="${SIGNET_CODE:-}"
  for _ in $(seq 50); do
    [ -n "$CODE" ] && break
    CODE="$(curl -sS "$SES/store" | jq -r --arg e "$EMAIL" \
      '[.emails[] | select(.destination.to | tostring | ascii_downcase | contains($e | ascii_downcase)) | .body.text // "" | capture("\\b(?<c>[0-9]{6})\\b").c] | last // empty')"
    [ -n "$CODE" ] || sleep 0.1
  done
  [ -n "$CODE" ] || { echo "no code arrived; set SIGNET_CODE to the code from your e-mail" >&2; exit 1; }
  KEY="$(call GET "/v1/auth/verify?email=$(jq -rn --arg e "$EMAIL" '$e|@uri')&code=$CODE" | jq -r .key)"
  echo "   got a key ${KEY:0:8}..."
  if [ -n "$KEY_FILE" ] && [ -z "${SIGNET_CODE:-}" ]; then
    mkdir -p "$(dirname "$KEY_FILE")"
    (umask 077; printf '%s\n' "$KEY" > "$KEY_FILE")
    echo "   kept it in $KEY_FILE for the next run"
  fi
fi
AUTH=(-H "Authorization: Bearer $KEY" -H "Content-Type: application/json")

NOW="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
SIGNER="$(json -n --arg e "$EMAIL" '{name: "Ada Lovelace", email: $e, ip: "203.0.113.7", userAgent: "signet-walkthrough.sh"}')"
TRAIL="$(json -n --arg t "$NOW" '[{type: "ready", timestamp: $t}, {type: "submit", timestamp: $t}]')"

echo "-> sign a PDF"
jq -n --arg doc "$(b64 "$FILES/contract.pdf")" --argjson signer "$SIGNER" --argjson trail "$TRAIL" \
  '{document: {base64: $doc}, signer: $signer, auditTrail: $trail, eventId: "walkthrough-pdf", metadata: {example: "walkthrough.sh"}}' > "$OUT/sign-pdf.json"
call POST /v1/sign "${AUTH[@]}" --data-binary "@$OUT/sign-pdf.json" | jq -r .document.base64 | base64 -d > "$OUT/signed-contract.pdf"
echo "   wrote $OUT/signed-contract.pdf"

echo "-> sign a DOCX"
jq -n --arg doc "$(b64 "$FILES/contract.docx")" --argjson signer "$SIGNER" --argjson trail "$TRAIL" \
  '{document: {base64: $doc}, signer: $signer, auditTrail: $trail, eventId: "walkthrough-docx"}' > "$OUT/sign-docx.json"
call POST /v1/sign "${AUTH[@]}" --data-binary "@$OUT/sign-docx.json" | jq -r .document.base64 | base64 -d > "$OUT/signed-contract-docx.pdf"
echo "   wrote $OUT/signed-contract-docx.pdf"

PICTURE="data:image/png;base64,$(b64 "$FILES/signature.png")"
jq -n --arg doc "$(b64 "$FILES/template.docx")" --arg pic "$PICTURE" '{
  document: {base64: $doc},
  fields: [
    {id: "customer-name", type: "text", value: "Ada Lovelace"},
    {group: "company", type: "text", value: "Analytical Engines Ltd"},
    {id: "logo", type: "image", value: $pic, options: {dimensions: {width: 80}}},
    {id: "items", type: "table", value: [["Difference engine", "1", "17,000.00"], ["Punched cards", "500", "25.00"]]},
    {id: "agree", type: "checkbox", value: "true"},
    {id: "signature", type: "signature", value: $pic, options: {dimensions: {height: 40}}},
    {id: "contractNo", type: "text", value: "C-42"}
  ]}' > "$OUT/annotate.json"
# Annotate answers a data URI: strip "data:<type>;base64," before decoding.
for to in docx pdf; do
  echo "-> annotate a template to ${to^^}"
  call POST "/v1/annotate?to=$to" "${AUTH[@]}" --data-binary "@$OUT/annotate.json" | jq -r '.document.base64 | sub("^data:[^,]*,"; "")' | base64 -d > "$OUT/filled-template.$to"
  echo "   wrote $OUT/filled-template.$to"
done

echo "-> convert a DOCX to PDF"
call POST "/v1/convert?from=docx" -H "Authorization: Bearer $KEY" -F "file=@$FILES/contract.docx" > "$OUT/converted-contract.pdf"
echo "   wrote $OUT/converted-contract.pdf"

echo "-> verify a signature"
jq -n --arg doc "$(b64 "$OUT/signed-contract.pdf")" '{document: {base64: $doc}}' > "$OUT/verify.json"
REPORT="$(call POST /v1/verify -H "Content-Type: application/json" --data-binary "@$OUT/verify.json")"
echo "$REPORT" | jq -r '"   valid: \(.valid), trusted: \(.trusted) (\(.reason)); signed by \(.signer.name // "nobody")"'
# Rely on a document only when both hold: intact and unchanged, and signed by a trusted certificate.
[ "$(echo "$REPORT" | jq -r '.valid and .trusted')" = true ] || exit 1
echo "Done."
