import { readFile, writeFile } from "node:fs/promises";

const pdf = await readFile("examples/files/contract.pdf");
const split = (output) =>
  fetch("http://localhost:3000/v1/split", {
    method: "POST",
    headers: { Authorization: `Bearer ${process.env.SIGNET_KEY}`, "Content-Type": "application/json" },
    body: JSON.stringify({ document: { base64: pdf.toString("base64") }, every: 1, output }),
  });
const response = await split("zip");
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
await writeFile("parts.zip", Buffer.from(await response.arrayBuffer()));
// Or keep each part as an upload of your key: pass parts[i].upload as document.upload to sign, merge...
const uploads = await split("uploads");
if (!uploads.ok) throw new Error(`${uploads.status}: ${await uploads.text()}`);
for (const part of (await uploads.json()).parts) console.log(part.upload, "pages", part.pages.join(","));
