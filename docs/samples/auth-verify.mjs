// 123456: the code from the e-mail. The key is shown once: keep it.
const response = await fetch("http://localhost:3000/v1/auth/verify?" + new URLSearchParams({ email: "me@example.com", code: "123456" }));
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const { key } = await response.json();
console.log(key);
