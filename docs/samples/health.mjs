const response = await fetch("http://localhost:3000/v1/health");
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
console.log(await response.json());
