import { readFile } from "node:fs/promises";

const pdf = await readFile("examples/files/contract.pdf");
const response = await fetch("http://localhost:3000/v1/metadata", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({
    document: { base64: pdf.toString("base64") },
    set: { title: "Master services agreement", author: "Ada Lovelace", custom: { ContractId: "C-42" } },
  }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const { metadata } = await response.json();
console.log(metadata.title, metadata.author, metadata.custom);
