curl --fail-with-body -sS "http://localhost:3000/v1/keys" -H "Authorization: Bearer $SIGNET_KEY"
