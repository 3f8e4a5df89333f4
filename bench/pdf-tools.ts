// npm run bench:pdf-tools — merge of 2, 20 and 200 files (5 pages each) and split of a 1,000-page PDF
// through the local server (POST /v1/merge, /v1/split), against qpdf as a process on the same files
// in the same run (`qpdf --empty --pages ... -- out.pdf`, `qpdf --split-pages`). The server runs in
// its own process (bench/http.ts --server, as `npm start` runs it), so its figures are its own: the
// median wall time a client sees, the server's CPU time a request (/proc/<pid>/stat), and its peak
// RSS growth during the case (VmHWM reset through /proc/<pid>/clear_refs before each case) against
// the input size; qpdf's CPU time a run beside the server's (steadier than wall time on a busy
// machine). A "fixed cost" row: an authorised merge refused at validation (one document),
// what every request pays before any PDF work (auth, key rate, JSON body).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { makeBenchPdf } from "./naive-stack.ts";
import { cpuMs, type ServerHandle, startServer } from "./server-process.ts";

const RUNS = Number(process.env.RUNS ?? 9);
const dir = mkdtempSync(join(tmpdir(), "signet-bench-pdf-tools-"));

const median = (samples: number[]) => [...samples].sort((a, b) => a - b)[Math.floor(samples.length / 2)]!;

/** memory reads VmRSS and VmHWM (peak RSS since the last reset) of a process, in MB. */
function memory(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)![1]) / 1024;
  return { rss: mb("VmRSS"), peak: mb("VmHWM") };
}

const agent = new http.Agent({ keepAlive: true });

function post(server: ServerHandle, path: string, body: Buffer, expected = 200): Promise<void> {
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/json", "content-length": body.length, authorization: `Bearer ${server.key}` };
    const req = http.request(`${server.url}${path}`, { method: "POST", agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        if (res.statusCode === expected) resolve();
        else reject(new Error(`${path}: ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`));
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

interface Figures {
  wall: number;
  cpu: number;
  rssGrowth: number;
}

/** measure runs one warm-up, then RUNS timed calls; the server's CPU a call and its peak RSS growth over the case. */
async function measure(server: ServerHandle, call: () => Promise<unknown>): Promise<Figures> {
  await call();
  (globalThis as { gc?: () => void }).gc?.();
  writeFileSync(`/proc/${server.pid}/clear_refs`, "5");
  const before = memory(server.pid).rss;
  const cpuBefore = cpuMs(server.pid);
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    await call();
    samples.push(performance.now() - start);
  }
  return { wall: median(samples), cpu: (cpuMs(server.pid) - cpuBefore) / RUNS, rssGrowth: memory(server.pid).peak - before };
}

/** qpdfFigures are qpdf's median wall time and its CPU time a run (user + system, from bash's `times` over RUNS runs). */
async function qpdfFigures(args: string[]): Promise<{ wall: number; cpu: number }> {
  const { wall } = await measure({ pid: process.pid } as ServerHandle, async () => execFileSync("qpdf", args));
  const quoted = args.map((arg) => `'${arg}'`).join(" ");
  const times = execFileSync("bash", ["-c", `for i in $(seq ${RUNS}); do qpdf ${quoted}; done; times`], { encoding: "utf8" })
    .trim()
    .split("\n")
    .at(-1)!;
  const seconds = [...times.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, match) => sum + Number(match[1]) * 60 + Number(match[2]), 0);
  return { wall, cpu: (seconds * 1000) / RUNS };
}

const server = await startServer([], { SIGNET_LOG_LEVEL: "SILENT" });
const rows: string[] = [];
const row = (name: string, signet: Figures, qpdf: { wall: number; cpu: number } | undefined, inputMb: number) =>
  rows.push(
    `| ${name} | ${signet.wall.toFixed(1)} | ${qpdf?.wall.toFixed(1) ?? "-"} | ${qpdf ? (signet.wall / qpdf.wall).toFixed(2) : "-"} | ${signet.cpu.toFixed(0)} | ${qpdf?.cpu.toFixed(0) ?? "-"} | ${qpdf ? (signet.cpu / qpdf.cpu).toFixed(2) : "-"} | ${signet.rssGrowth.toFixed(0)} | ${inputMb > 0 ? (signet.rssGrowth / inputMb).toFixed(1) : "-"} |`,
  );
try {
  const file = await makePdf(5);
  const base64 = file.toString("base64");
  const fixed = Buffer.from(JSON.stringify({ documents: [{ document: { base64 } }] }));
  row("fixed cost (merge refused at validation)", await measure(server, () => post(server, "/v1/merge", fixed, 400)), undefined, 0);
  for (const count of [2, 20, 200]) {
    const paths = Array.from({ length: count }, (_, index) => join(dir, `in-${count}-${index}.pdf`));
    for (const path of paths) writeFileSync(path, file);
    const body = Buffer.from(JSON.stringify({ documents: paths.map(() => ({ document: { base64 } })) }));
    const signet = await measure(server, () => post(server, "/v1/merge", body));
    const qpdf = await qpdfFigures(["--empty", "--pages", ...paths, "--", join(dir, "merged.pdf")]);
    const inputMb = (file.length * count) / 1024 / 1024;
    row(`merge ${count} files (${count * 5} pages, ${inputMb.toFixed(2)} MB)`, signet, qpdf, inputMb);
  }
  const big = await makePdf(1000);
  const bigPath = join(dir, "big.pdf");
  writeFileSync(bigPath, big);
  const splitBody = Buffer.from(JSON.stringify({ document: { base64: big.toString("base64") }, every: 1 }));
  const split = await measure(server, () => post(server, "/v1/split", splitBody));
  const qpdfSplit = await qpdfFigures(["--split-pages", bigPath, join(dir, "part-%d.pdf")]);
  const bigMb = big.length / 1024 / 1024;
  row(`split 1,000 pages into 1,000 (${bigMb.toFixed(2)} MB)`, split, qpdfSplit, bigMb);
  // A large input (100 pages with 100 KB of picture each): where the memory goal means something.
  const heavy = await makeBenchPdf(100, 100_000);
  const heavyPath = join(dir, "heavy.pdf");
  writeFileSync(heavyPath, heavy);
  const heavyBody = Buffer.from(JSON.stringify({ document: { base64: heavy.toString("base64") }, every: 1 }));
  const heavySplit = await measure(server, () => post(server, "/v1/split", heavyBody));
  const qpdfHeavy = await qpdfFigures(["--split-pages", heavyPath, join(dir, "heavy-%d.pdf")]);
  const heavyMb = heavy.length / 1024 / 1024;
  row(`split 100 pages into 100 (${heavyMb.toFixed(2)} MB)`, heavySplit, qpdfHeavy, heavyMb);
} finally {
  server.child.kill("SIGTERM");
}
console.log(
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}, ${RUNS} runs a case`,
);
console.log(
  `| case | Signet median ms | qpdf median ms | wall ratio | server CPU ms | qpdf CPU ms | CPU ratio | server peak RSS growth MB | growth / input |\n|---|---|---|---|---|---|---|---|---|\n${rows.join("\n")}`,
);
