import { readFile, writeFile } from "node:fs/promises";

// B-LTA renewal: fresh validation data and a document timestamp (needs SIGNET_TSA_URL on the server).
const pdf = await readFile("signed.pdf");
const response = await fetch("http://localhost:3000/v1/timestamp", {
  method: "POST",
  headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
  body: JSON.stringify({ document: { base64: pdf.toString("base64") } }),
});
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
const { document } = await response.json();
await writeFile("timestamped.pdf", Buffer.from(document.base64, "base64"));
