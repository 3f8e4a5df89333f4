import { readFile, writeFile } from "node:fs/promises";

const headers = { Authorization: `Bearer ${process.env.SIGNET_KEY}` };
const body = {
  document: { base64: (await readFile("examples/files/contract.pdf")).toString("base64") },
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
};
const submitted = await fetch("http://localhost:3000/v1/sign", {
  method: "POST",
  headers: { ...headers, Prefer: "respond-async", "Content-Type": "application/json" },
  body: JSON.stringify(body),
});
if (submitted.status !== 202) throw new Error(`${submitted.status}: ${await submitted.text()}`);
let job = await submitted.json();
while (job.status === "queued" || job.status === "running") {
  await new Promise((resolve) => setTimeout(resolve, 1000 * Number(submitted.headers.get("Retry-After") ?? 1)));
  const read = await fetch(`http://localhost:3000/v1/jobs/${job.id}`, { headers });
  if (!read.ok) throw new Error(`${read.status}: ${await read.text()}`);
  job = await read.json();
}
if (job.status !== "succeeded") throw new Error(`job ${job.status}: ${JSON.stringify(job.error)}`);
const answer = await (await fetch(job.result.url)).json();
await writeFile("signed-by-job.pdf", Buffer.from(answer.document.base64, "base64"));
console.log(job.id, job.status);
