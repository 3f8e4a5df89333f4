// npm run bench:docx-bomb. Starts the local server in this process, polls
// GET /v1/health from a separate process, and sends the XML-bomb DOCX files and the heaviest
// documents the default limits allow to /v1/annotate/fields and /v1/annotate. For each it prints
// the answer, how long it took, the health latency while it ran (max / median / polls) and the
// peak RSS of the server process during it (VmHWM from /proc, reset before each case).
import { readFileSync, writeFileSync } from "node:fs";
import { obtainKey, startLocalApi } from "#test/helpers/local-api.ts";
import { nodeBomb, sdtBomb, worstControls, worstNested, worstPlaceholders } from "#test/helpers/docx-bomb.ts";
import { machineLine, median, watchHealth } from "./health-watch.ts";

process.env.SIGNET_LOG_LEVEL ??= "WARN";
const api = await startLocalApi("bench-docx-bomb");
const limits = api.container.config.limits;
const key = await obtainKey(api, "bench-docx-bomb");

const base64 = (bytes: Buffer) => bytes.toString("base64");
const worst = { controls: worstControls(limits), nested: worstNested(limits), placeholders: worstPlaceholders(limits) };
const cases: Array<{ name: string; path: string; body: unknown }> = [
  { name: "sdt bomb (40 MB of tiny w:sdt) -> fields", path: "/v1/annotate/fields", body: { document: { base64: base64(sdtBomb()) } } },
  { name: "sdt bomb -> annotate", path: "/v1/annotate", body: { document: { base64: base64(sdtBomb()) }, fields: [{ id: "x", type: "text", value: "v" }] } },
  { name: "node bomb (40 MB of <w:r/>) -> fields", path: "/v1/annotate/fields", body: { document: { base64: base64(nodeBomb()) } } },
  { name: "worst allowed: most controls -> fields", path: "/v1/annotate/fields", body: { document: { base64: base64(worst.controls) } } },
  {
    name: `worst allowed: most controls -> annotate (${limits.maxFields} fields)`,
    path: "/v1/annotate",
    body: {
      document: { base64: base64(worst.controls) },
      fields: Array.from({ length: limits.maxFields }, (_, i) => ({ id: `c${i}`, type: "text", value: `value ${i}` })),
    },
  },
  {
    name: "worst allowed: largest control -> annotate",
    path: "/v1/annotate",
    body: { document: { base64: base64(worst.nested) }, fields: [{ id: "all", type: "text", value: "v" }] },
  },
  {
    name: "worst allowed: {{placeholder}} in most nodes -> annotate",
    path: "/v1/annotate",
    body: { document: { base64: base64(worst.placeholders) }, fields: [{ id: "name", type: "text", value: "v" }] },
  },
];

const poller = watchHealth(api.url);
const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const rows: Array<{ name: string; status: number; code: string; ms: number; rss: number }> = [];
await pause(500);
// Each case runs twice: first in a fresh server (code not yet optimised by V8), then again.
for (const round of ["first", "again"]) {
  for (const item of cases) {
    const name = `${item.name} [${round}]`;
    await pause(300);
    writeFileSync("/proc/self/clear_refs", "5"); // resets VmHWM to the current RSS
    poller.phase(name);
    const started = performance.now();
    const response = await fetch(`${api.url}${item.path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify(item.body),
    });
    const answer = (await response.json()) as { code?: string; message?: string };
    const ms = performance.now() - started;
    await pause(100); // a poll in flight when the answer left still belongs to this case
    poller.phase(`after ${name}`);
    rows.push({ name, status: response.status, code: answer.code ? `${answer.code}: ${answer.message}` : "ok", ms, rss: peakRssMb() });
  }
}
const samples = await poller.done();

console.log(machineLine());
console.log(`limits: ${limits.maxDocxControls} controls, ${limits.maxDocxXmlNodes} XML elements, ${limits.maxDocxControlNodes} elements inside controls`);
for (const row of rows) {
  const health = samples[row.name] ?? [];
  console.log(`\n${row.name}\n  answer ${row.status} ${row.code.slice(0, 140)}`);
  console.log(
    `  took ${row.ms.toFixed(0)} ms; health max ${Math.max(...health).toFixed(0)} ms, median ${median(health).toFixed(0)} ms over ${health.length} polls; peak RSS ${row.rss.toFixed(0)} MB`,
  );
}
await api.close();
process.exit(0);
