curl --fail-with-body -sS "http://localhost:3000/v1/auth/register?email=me@example.com"
# the code arrives by e-mail; locally it is printed by npm start and kept at http://127.0.0.1:8005
