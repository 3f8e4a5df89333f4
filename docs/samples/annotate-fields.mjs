import { readFile } from "node:fs/promises";

const docx = await readFile("examples/files/template.docx");
const response = await fetch("http://localhost:3000/v1/annotate/fields", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({ document: { base64: docx.toString("base64") } }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const { fields, placeholders } = await response.json();
const names = fields.map((field) => field.ids[0] ?? field.group);
console.log(names, placeholders);
