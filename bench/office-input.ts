// npm run bench:office-input. Starts the local server in this process, polls GET /v1/health from a
// separate process, and sends it the heaviest documents the office input checks rewrite, and the
// three small inputs that froze it (issue 36):
// - /v1/convert: a DOCX whose 40 MB (and 100 MB) document.xml is full of fields and link attributes,
//   and a 20 MB RTF of fields, each ending in a picture declaring 60000 x 60000 pixels, read after
//   the rewrite, so the answer is 413 and LibreOffice never runs: a request's time is the checks';
// - /v1/convert: a 21 MB .doc whose 100 stream entries share one sector chain;
// - /v1/annotate/fields and /v1/annotate with data: a 1.8 KB DOCX of 20,000 nested {{#a}} sections;
// - /v1/annotate: 20 repeat fields of 10,000 items each (a 3 MB request).
// For each it prints the answer, how long it took, the health latency while it ran (max / median /
// polls) and the peak RSS of the server process during it (VmHWM from /proc, reset before each).
// Usage: npm run bench:office-input [-- freeze] (with freeze: only the inputs that froze the server)
import { readFileSync, writeFileSync } from "node:fs";
import { sharedChainDoc } from "#test/helpers/compound-files.ts";
import { buildDocx, inlineControl, p, repeatingSection, run } from "#test/helpers/docx-builder.ts";
import { heavyFieldsDocx, heavyRtf } from "#test/helpers/heavy-office.ts";
import { obtainKey, startLocalApi } from "#test/helpers/local-api.ts";
import { machineLine, median, watchHealth } from "./health-watch.ts";

process.env.SIGNET_LOG_LEVEL ??= "WARN";
const api = await startLocalApi("bench-office-input");
const key = await obtainKey(api, "bench-office-input");
const MB = 1024 * 1024;
const auth = { authorization: `Bearer ${key}` };

const convert = (bytes: Buffer, from: string) => () => {
  const form = new FormData();
  form.append("file", new Blob([bytes]), `document.${from}`);
  return fetch(`${api.url}/v1/convert?from=${from}&to=pdf`, { method: "POST", body: form, headers: auth });
};
const post = (path: string, body: unknown) => () =>
  fetch(`${api.url}${path}`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify(body) });

const sent = (name: string, bytes: Buffer, from: string) => ({ name, size: bytes.length, send: convert(bytes, from) });

const nested = buildDocx({ body: p(run(`${"{{#a}}".repeat(20_000)}x${"{{/a}}".repeat(20_000)}`)) }).toString("base64");
const sections = buildDocx({
  body: Array.from({ length: 20 }, (_, i) => repeatingSection({ tag: `s${i}` }, p(run("Name: ") + inlineControl({ tag: "name" })))).join(""),
}).toString("base64");
const items = Array.from({ length: 10_000 }, (_, i) => ({ name: `item ${i}` }));
const repeatBody = { document: { base64: sections }, fields: Array.from({ length: 20 }, (_, i) => ({ id: `s${i}`, type: "repeat", value: items })) };
const freeze: Array<{ name: string; size: number; send: () => Promise<Response> }> = [
  sent(".doc, 21 MB, 100 stream entries sharing one chain", sharedChainDoc(21 * MB, 100), "doc"),
  { name: "DOCX of 20,000 nested {{#a}} -> /v1/annotate/fields", size: nested.length, send: post("/v1/annotate/fields", { document: { base64: nested } }) },
  {
    name: "DOCX of 20,000 nested {{#a}} -> /v1/annotate with data",
    size: nested.length,
    send: post("/v1/annotate", { document: { base64: nested }, fields: [], data: { a: true } }),
  },
  { name: "20 repeat fields x 10,000 items -> /v1/annotate", size: JSON.stringify(repeatBody).length, send: post("/v1/annotate", repeatBody) },
];
const heavy = [
  sent("DOCX, document.xml 40 MB of fields and links", heavyFieldsDocx(40 * MB), "docx"),
  sent("DOCX, document.xml 100 MB of fields and links", heavyFieldsDocx(100 * MB), "docx"),
  sent("RTF, 20 MB of fields", heavyRtf(20 * MB), "rtf"),
];
const cases = process.argv.includes("freeze") ? freeze : [...heavy, ...freeze];

const poller = watchHealth(api.url);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]) / 1024;

const rows: Array<{ name: string; status: number; code: string; ms: number; size: number; rss: number }> = [];
await pause(500);
// Each case runs twice: first in a fresh server (code not yet optimised by V8), then again.
for (const round of ["first", "again"]) {
  for (const item of cases) {
    const name = `${item.name} [${round}]`;
    await pause(300);
    writeFileSync("/proc/self/clear_refs", "5"); // resets VmHWM to the current RSS
    poller.phase(name);
    const started = performance.now();
    const response = await item.send();
    const answer = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
    const ms = performance.now() - started;
    await pause(100); // a poll in flight when the answer left still belongs to this case
    poller.phase(`after ${name}`);
    rows.push({ name, status: response.status, code: answer.code ? `${answer.code}: ${answer.message}` : "ok", ms, size: item.size, rss: peakRssMb() });
  }
}
const samples = await poller.done();

console.log(machineLine());
for (const row of rows) {
  const health = samples[row.name] ?? [];
  console.log(`\n${row.name} (${(row.size / MB).toFixed(2)} MB sent)\n  answer ${row.status} ${row.code.slice(0, 120)}`);
  console.log(
    `  took ${row.ms.toFixed(0)} ms; health max ${Math.max(...health).toFixed(0)} ms, median ${median(health).toFixed(0)} ms over ${health.length} polls; peak RSS ${row.rss.toFixed(0)} MB`,
  );
}
await api.close();
process.exit(0);
