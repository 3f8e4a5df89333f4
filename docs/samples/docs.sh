curl --fail-with-body -sS "http://localhost:3000/docs" -o signet-docs.html
