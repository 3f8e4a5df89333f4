curl --fail-with-body -sS -X DELETE "http://localhost:3000/v1/keys/$KEY_ID" -H "Authorization: Bearer $SIGNET_KEY"
