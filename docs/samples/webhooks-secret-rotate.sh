curl --fail-with-body -sS -X POST "http://localhost:3000/v1/webhooks/secret/rotate" -H "Authorization: Bearer $SIGNET_KEY"
