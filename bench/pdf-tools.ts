// npm run bench:pdf-tools — merge of 2, 20 and 200 files (5 pages each) and split of a 1,000-page PDF
// through the local server (POST /v1/merge, /v1/split), against qpdf as a process on the same files
// in the same run (`qpdf --empty --pages ... -- out.pdf`, `qpdf --split-pages`). Prints medians,
// the ratio, and the server process's peak RSS growth against the input size. The server runs in
// this process (test/helpers/local-api.ts), so its RSS includes the client's copy of the request.
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { obtainKey, startLocalApi } from "#test/helpers/local-api.ts";

const RUNS = 5;
const dir = mkdtempSync(join(tmpdir(), "signet-bench-pdf-tools-"));

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;
const maxRssMb = () => process.resourceUsage().maxRSS / 1024;

async function time(what: () => Promise<unknown> | unknown): Promise<number> {
  const samples: number[] = [];
  await what(); // warm up
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    await what();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const api = await startLocalApi("bench-pdf-tools", { SIGNET_TABLE: "signet-bench-pdf-tools", SIGNET_LOG_LEVEL: "SILENT" });
const key = await obtainKey(api, "bench-pdf-tools");

async function post(path: string, body: unknown): Promise<void> {
  const response = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const bytes = await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${Buffer.from(bytes).toString().slice(0, 300)}`);
}

const rows: string[] = [];
const file = await makePdf(5);
for (const count of [2, 20, 200]) {
  const paths = Array.from({ length: count }, (_, index) => join(dir, `in-${count}-${index}.pdf`));
  for (const path of paths) writeFileSync(path, file);
  const body = { documents: paths.map(() => ({ document: { base64: file.toString("base64") } })) };
  const rssBefore = maxRssMb();
  const signet = await time(() => post("/v1/merge", body));
  const rss = maxRssMb() - rssBefore;
  const qpdf = await time(() => execFileSync("qpdf", ["--empty", "--pages", ...paths, "--", join(dir, "merged.pdf")]));
  const inputMb = (file.length * count) / 1024 / 1024;
  rows.push(
    `| merge ${count} files (${count * 5} pages, ${inputMb.toFixed(2)} MB) | ${signet.toFixed(0)} | ${qpdf.toFixed(0)} | ${(signet / qpdf).toFixed(2)} | ${rss.toFixed(0)} |`,
  );
}

const big = await makePdf(1000);
const bigPath = join(dir, "big.pdf");
writeFileSync(bigPath, big);
const rssBefore = maxRssMb();
const split = await time(() => post("/v1/split", { document: { base64: big.toString("base64") }, every: 1 }));
const splitRss = maxRssMb() - rssBefore;
const qpdfSplit = await time(() => execFileSync("qpdf", ["--split-pages", bigPath, join(dir, "part-%d.pdf")]));
rows.push(
  `| split 1,000 pages into 1,000 (${(big.length / 1024 / 1024).toFixed(2)} MB) | ${split.toFixed(0)} | ${qpdfSplit.toFixed(0)} | ${(split / qpdfSplit).toFixed(2)} | ${splitRss.toFixed(0)} |`,
);

console.log(`| case | Signet median ms | qpdf median ms | ratio | peak RSS growth MB |\n|---|---|---|---|---|\n${rows.join("\n")}`);
await api.close();
