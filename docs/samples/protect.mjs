import { readFile, writeFile } from "node:fs/promises";

// contract.pdf encrypted AES-256: "open-sesame" opens it, copying text is not allowed.
const pdf = await readFile("contract.pdf");
const response = await fetch("http://localhost:3000/v1/protect", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({
    document: { base64: pdf.toString("base64") },
    userPassword: "open-sesame",
    ownerPassword: "owner-secret",
    permissions: { copy: false },
  }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const { document } = await response.json();
await writeFile("protected.pdf", Buffer.from(document.base64, "base64"));
