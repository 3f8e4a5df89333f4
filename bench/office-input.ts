// npm run bench:office-input. Starts the local server in this process, polls GET /v1/health from a
// separate process, and sends /v1/convert the heaviest documents the office input checks rewrite:
// a DOCX whose 40 MB document.xml is full of fields and link attributes, and a 20 MB RTF of fields.
// Each ends in a picture declaring 60000 x 60000 pixels, read after the rewrite, so the answer is
// 413 and LibreOffice never runs: a request's time is the checks' time. For each it prints the
// answer, how long it took and the health latency while it ran (max / median / polls).
import { heavyFieldsDocx, heavyRtf } from "#test/helpers/heavy-office.ts";
import { obtainKey, startLocalApi } from "#test/helpers/local-api.ts";
import { machineLine, median, watchHealth } from "./health-watch.ts";

process.env.SIGNET_LOG_LEVEL ??= "WARN";
const api = await startLocalApi("bench-office-input");
const key = await obtainKey(api, "bench-office-input");
const MB = 1024 * 1024;
const cases: Array<{ name: string; from: string; bytes: Buffer }> = [
  { name: "DOCX, document.xml 40 MB of fields and links", from: "docx", bytes: heavyFieldsDocx(40 * MB) },
  { name: "DOCX, document.xml 100 MB of fields and links", from: "docx", bytes: heavyFieldsDocx(100 * MB) },
  { name: "RTF, 20 MB of fields", from: "rtf", bytes: heavyRtf(20 * MB) },
];

const poller = watchHealth(api.url);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const rows: Array<{ name: string; status: number; code: string; ms: number; size: number }> = [];
await pause(500);
// Each case runs twice: first in a fresh server (code not yet optimised by V8), then again.
for (const round of ["first", "again"]) {
  for (const item of cases) {
    const name = `${item.name} [${round}]`;
    await pause(300);
    poller.phase(name);
    const form = new FormData();
    form.append("file", new Blob([item.bytes]), `document.${item.from}`);
    const started = performance.now();
    const response = await fetch(`${api.url}/v1/convert?from=${item.from}&to=pdf`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } });
    const answer = (await response.json().catch(() => ({}))) as { code?: string; message?: string };
    const ms = performance.now() - started;
    await pause(100); // a poll in flight when the answer left still belongs to this case
    poller.phase(`after ${name}`);
    rows.push({ name, status: response.status, code: answer.code ? `${answer.code}: ${answer.message}` : "ok", ms, size: item.bytes.length });
  }
}
const samples = await poller.done();

console.log(machineLine());
for (const row of rows) {
  const health = samples[row.name] ?? [];
  console.log(`\n${row.name} (${(row.size / MB).toFixed(2)} MB sent)\n  answer ${row.status} ${row.code.slice(0, 120)}`);
  console.log(
    `  took ${row.ms.toFixed(0)} ms; health max ${Math.max(...health).toFixed(0)} ms, median ${median(health).toFixed(0)} ms over ${health.length} polls`,
  );
}
await api.close();
process.exit(0);
