const response = await fetch("http://localhost:3000/");
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
console.log(await response.json());
