curl --fail-with-body -sS "http://localhost:3000/openapi.json" -o openapi.json
