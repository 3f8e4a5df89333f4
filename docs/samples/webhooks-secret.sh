curl --fail-with-body -sS "http://localhost:3000/v1/webhooks/secret" -H "Authorization: Bearer $SIGNET_KEY"
