# 123456: the code from the e-mail. The answer's key is shown once: keep it (export SIGNET_KEY=sgn_...)
curl --fail-with-body -sS "http://localhost:3000/v1/auth/verify?email=me@example.com&code=123456"
