import { readFile, writeFile } from "node:fs/promises";

const pdf = await readFile("examples/files/contract.pdf");
const response = await fetch("http://localhost:3000/v1/split", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({ document: { base64: pdf.toString("base64") }, every: 1 }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
await writeFile("parts.zip", Buffer.from(await response.arrayBuffer()));
