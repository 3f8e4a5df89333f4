import { readFile, writeFile } from "node:fs/promises";

const pdf = (await readFile("examples/files/contract.pdf")).toString("base64");
const response = await fetch("http://localhost:3000/v1/merge", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({
    documents: [
      { document: { base64: pdf }, title: "Contract" },
      { document: { base64: pdf }, pages: "1", title: "Copy" },
    ],
  }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const { document, pageCount } = await response.json();
await writeFile("merged.pdf", Buffer.from(document.base64, "base64"));
console.log(`merged.pdf: ${pageCount} pages`);
