const response = await fetch(`http://localhost:3000/v1/webhooks/secret`, { method: "GET", headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}` } });
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
console.log(await response.json());
