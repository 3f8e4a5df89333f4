import { readFile } from "node:fs/promises";

const pdf = await readFile("signed.pdf");
const response = await fetch("http://localhost:3000/v1/verify", {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({ document: { base64: pdf.toString("base64") } }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const report = await response.json();
console.log(report.valid, report.reason);
