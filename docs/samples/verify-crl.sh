curl --fail-with-body -sS "http://localhost:3000/v1/verify/crl" -o signet-root.crl
