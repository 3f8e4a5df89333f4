const response = await fetch(`http://localhost:3000/v1/keys/revoke?token=${process.env.REVOKE_TOKEN}`);
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
console.log(await response.text());
