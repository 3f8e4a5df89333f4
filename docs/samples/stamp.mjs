import { readFile, writeFile } from "node:fs/promises";

const pdf = await readFile("examples/files/contract.pdf");
const response = await fetch("http://localhost:3000/v1/stamp", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({
    document: { base64: pdf.toString("base64") },
    text: { value: "CONFIDENTIAL", size: 60, color: "#C0392B" },
    opacity: 0.3,
    rotation: 45,
  }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const answer = await response.json();
await writeFile("stamped.pdf", Buffer.from(answer.document.base64, "base64"));
console.log(answer.mode, answer.pages);
