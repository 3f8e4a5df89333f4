const response = await fetch("http://localhost:3000/v1/verify/key");
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
console.log(await response.json());
