import { readFile, writeFile } from "node:fs/promises";

// protected.pdf without its password (the owner password, or a user password that allows changes).
const pdf = await readFile("protected.pdf");
const response = await fetch("http://localhost:3000/v1/unprotect", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({ document: { base64: pdf.toString("base64"), password: "owner-secret" } }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const { document } = await response.json();
await writeFile("unprotected.pdf", Buffer.from(document.base64, "base64"));
