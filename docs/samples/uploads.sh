curl --fail-with-body -sS -X POST "http://localhost:3000/v1/uploads" -H "Authorization: Bearer $SIGNET_KEY"
