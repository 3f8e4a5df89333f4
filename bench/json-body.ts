// npm run bench:json-body — the request side of a 10 MB sign in-process: a 12.7 MB JSON body with
// `document.base64` turned into document bytes, the way before (the value a 13 MB string, then
// decodeBase64) against readJsonBody decoding it from the body's bytes in 64 KB windows.
// Interleaved rounds, medians of wall and CPU time; the ratio is what a run compares.
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { decodeBase64 } from "#domain/shared/document.ts";
import { parseJsonBody, readJsonBody } from "#http/json-body.ts";

const ROUNDS = Number(process.env.ROUNDS ?? 30);
const pdf = randomBytes(9_500_000);
const body = Buffer.from(JSON.stringify({ document: { base64: pdf.toString("base64") }, signer: { name: "Ada", email: "ada@example.com" } }));

const ways: Record<string, () => Buffer> = {
  "string, then decodeBase64": () => decodeBase64((parseJsonBody(body, 32) as { document: { base64: string } }).document.base64, "document.base64").bytes,
  "decoded from the body bytes": () => readJsonBody(body, 32, true).document!.bytes,
};
const times: Record<string, { wall: number[]; cpu: number[] }> = {};
for (let round = -3; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(ways)) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const bytes = run();
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpu);
    if (!bytes.equals(pdf)) throw new Error(`${name}: wrong bytes`);
    if (round < 0) continue;
    times[name] ??= { wall: [], cpu: [] };
    times[name].wall.push(wall);
    times[name].cpu.push((used.user + used.system) / 1000);
  }
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`JSON body to document bytes, ${(body.length / 1e6).toFixed(1)} MB body, ${ROUNDS} interleaved rounds, load average ${loadavg()[0]!.toFixed(1)}`);
for (const [name, { wall, cpu }] of Object.entries(times)) {
  console.log(`| ${name} | median ${median(wall).toFixed(1)} ms | CPU ${median(cpu).toFixed(1)} ms |`);
}
