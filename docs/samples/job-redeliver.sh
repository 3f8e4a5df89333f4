curl --fail-with-body -sS -X POST "http://localhost:3000/v1/jobs/$JOB_ID/redeliver" -H "Authorization: Bearer $SIGNET_KEY"
