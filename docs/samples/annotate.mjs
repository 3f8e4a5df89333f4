import { readFile, writeFile } from "node:fs/promises";

const docx = await readFile("examples/files/template.docx");
const png = await readFile("examples/files/signature.png");
const response = await fetch("http://localhost:3000/v1/annotate?to=pdf", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({
    document: { base64: docx.toString("base64") },
    fields: [
      { id: "customer-name", type: "text", value: "Ada Lovelace" },
      { group: "company", type: "text", value: "Analytical Engines Ltd" },
      { id: "signature", type: "signature", value: "data:image/png;base64," + png.toString("base64"), options: { dimensions: { height: 40 } } },
    ],
  }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const { document } = await response.json(); // base64 is a data URI: data:application/pdf;base64,...
await writeFile("filled.pdf", Buffer.from(document.base64.split(",")[1], "base64"));
