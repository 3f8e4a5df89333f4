import { readFile, writeFile } from "node:fs/promises";

const pdf = await readFile("examples/files/contract.pdf");
const response = await fetch("http://localhost:3000/v1/sign", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({
    document: { base64: pdf.toString("base64") },
    signer: { name: "Ada Lovelace", email: "ada@example.com" },
    auditTrail: [{ type: "submit", timestamp: new Date().toISOString() }],
  }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const { document } = await response.json();
await writeFile("signed.pdf", Buffer.from(document.base64, "base64"));
