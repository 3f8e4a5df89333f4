curl --fail-with-body -sS -X POST "http://localhost:3000/v1/convert?from=docx" -H "Authorization: Bearer $SIGNET_KEY" \
  -F file=@examples/files/contract.docx -o contract.pdf
