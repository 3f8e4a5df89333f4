import { readFile, writeFile } from "node:fs/promises";

// A multipart body with one part named "file"; fetch sets the Content-Type with its boundary.
const form = new FormData();
form.append("file", new Blob([await readFile("examples/files/contract.docx")]), "contract.docx");
const response = await fetch("http://localhost:3000/v1/convert?from=docx", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}` },
  body: form,
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
await writeFile("contract.pdf", Buffer.from(await response.arrayBuffer()));
