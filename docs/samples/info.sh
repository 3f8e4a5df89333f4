curl --fail-with-body -sS "http://localhost:3000/"
