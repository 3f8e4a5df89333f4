// npm run bench:verify. Starts the local server in this process, polls
// GET /v1/health from a separate process, signs a 100-page 10 MB PDF (and a one-page contract)
// through /v1/sign, and sends /v1/verify: the 10 MB file with 1, 100 and the most revisions
// allowed, the bounded-work attacks (an xref stream with /W [0 0 0] and a huge /Index, inflate
// bombs in an xref and an object stream, one update too many) and the formerly quadratic case
// (many small updates after one signature). For each: the answer, how long it took, the worst
// and median health latency while it ran, and the peak RSS above the RSS before the case
// (VmHWM from /proc, reset before each case). Targets: every file answered within 5 s, health
// under 200 ms, RSS growth under 300 MB. The server runs in a child process started as `npm start`
// starts it (--expose-gc, MALLOC_MMAP_THRESHOLD_, the verify thread warmed by one untimed verify),
// so its collections see only the server's memory, and requests go from curl.
import { execFile, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_VERIFY_LIMITS } from "#domain/pdf/verify-limits.ts";
import * as attack from "#test/helpers/pdf-attacks/revisions.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { makeBenchPdf } from "./naive-stack.ts";
import { machineLine, median, watchHealth } from "./health-watch.ts";

process.env.SIGNET_LOG_LEVEL ??= "WARN";

// ---- the server process: stand-ins, the local server and one API key, printed as JSON ----------
if (process.argv.includes("--server")) {
  const { obtainKey, startLocalApi } = await import("#test/helpers/local-api.ts");
  const api = await startLocalApi("bench-verify");
  const key = await obtainKey(api, "bench-verify");
  process.stdout.write(`${JSON.stringify({ url: api.url, key })}\n`);
  process.on("SIGTERM", () => void api.close().then(() => process.exit(0)));
  await new Promise(() => undefined); // serve until the parent stops it
}

const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", new URL(import.meta.url).pathname, "--server"], {
  env: { ...process.env, MALLOC_MMAP_THRESHOLD_: "131072" },
  stdio: ["ignore", "pipe", "inherit"],
});
const api = await new Promise<{ url: string; key: string }>((resolve, reject) => {
  let text = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    text += chunk;
    const line = text.split("\n").find((candidate) => candidate.startsWith("{"));
    if (line) resolve(JSON.parse(line) as { url: string; key: string });
  });
  child.once("exit", (code) => reject(new Error(`the server exited with ${code}`)));
});
const limits = DEFAULT_VERIFY_LIMITS;

/** Answer is what bench:verify reads of an answer: a signed document, or an error. */
interface Answer {
  document?: { base64: string };
  code?: string;
  message?: string;
}

async function post(path: string, body: unknown, key?: string): Promise<{ status: number; json: Answer }> {
  const response = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Answer };
}

async function sign(pdf: Buffer): Promise<Buffer> {
  const { status, json } = await post(
    "/v1/sign",
    {
      document: { base64: pdf.toString("base64") },
      signer: { name: "Bench Signer", email: "bench@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
    },
    api.key,
  );
  if (status !== 200) throw new Error(`sign answered ${status}: ${JSON.stringify(json)}`);
  return Buffer.from(json.document!.base64, "base64");
}

const big = await attack.inspect(await sign(await makeBenchPdf(100, 100_000)));
const small = await attack.inspect(await sign(await attack.contractPdf()));
const cases: Array<{ name: string; build: () => Buffer | Promise<Buffer> }> = [
  { name: `10 MB, 100 pages, 1 signature (${(big.bytes.length / 1024 / 1024).toFixed(1)} MB)`, build: () => big.bytes },
  { name: "10 MB, 100 revisions (98 updates after the signature)", build: () => attack.manyUpdates(big, 98) },
  {
    name: `10 MB, the most revisions allowed (${limits.maxRevisions - 1} updates after the signature)`,
    build: () => attack.manyUpdates(big, limits.maxRevisions - 1),
  },
  { name: "10 MB, one update too many (refused)", build: () => attack.manyUpdates(big, limits.maxRevisions) },
  { name: "xref stream /W [0 0 0], /Index [1 10000000]", build: () => attack.zeroWidthEntries(small, 10_000_000) },
  { name: "the same behind a decoy /Index in a string", build: () => attack.zeroWidthEntries(small, 10_000_000, true) },
  { name: "xref stream inflate bomb (300 MB of zeros)", build: () => attack.inflateBomb(small, 300) },
  { name: "object stream inflate bomb (300 MB)", build: () => attack.objectStreamBomb(small, 300) },
  { name: `formerly quadratic: ${limits.maxRevisions - 1} small updates after one signature`, build: () => attack.manyUpdates(small, limits.maxRevisions - 1) },
  { name: "formerly quadratic: 2,000 small updates (refused)", build: () => attack.manyUpdates(small, 2_000) },
];

const poller = watchHealth(api.url);
const status = () => readFileSync(`/proc/${child.pid}/status`, "utf8");
const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(status())![1]) / 1024;
const peakRssMb = () => Number(/VmHWM:\s+(\d+) kB/.exec(status())![1]) / 1024;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const rows: Array<{ name: string; status: number; answer: string; ms: number; rss: number }> = [];
// As `npm start` does, the verify thread is started before the first measured request.
await post("/v1/verify", { document: { base64: small.bytes.toString("base64") } });
await pause(500);
// Each case runs twice: first with the verify thread's code not yet optimised for it, then again.
for (const round of ["first", "again"]) {
  for (const item of cases) {
    const name = `${item.name} [${round}]`;
    // The request goes from curl (another process), so the server's process does only the server's work.
    const bodyFile = join(scratchDir("bench-verify"), "body.json");
    writeFileSync(bodyFile, JSON.stringify({ document: { base64: (await item.build()).toString("base64") } }));
    await pause(300);
    const idle = rssMb();
    writeFileSync(`/proc/${child.pid}/clear_refs`, "5"); // resets the server's VmHWM to its current RSS
    poller.phase(name);
    const started = performance.now();
    const output = await new Promise<string>((resolve, reject) =>
      execFile(
        "curl",
        ["-sS", "-X", "POST", "-H", "content-type: application/json", "--data-binary", `@${bodyFile}`, "-w", "\n%{http_code}", `${api.url}/v1/verify`],
        { maxBuffer: 16 * 1024 * 1024 },
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      ),
    );
    const statusAt = output.lastIndexOf("\n");
    const response = { status: Number(output.slice(statusAt + 1)) };
    const json = JSON.parse(output.slice(0, statusAt)) as { code?: string; message?: string; valid?: boolean; reason?: string };
    const ms = performance.now() - started;
    await pause(100); // a poll in flight when the answer left still belongs to this case
    poller.phase(`after ${name}`);
    const answer = json.code ? `${json.code}: ${json.message}` : `valid ${json.valid}: ${json.reason}`;
    rows.push({ name, status: response.status, answer, ms, rss: peakRssMb() - idle });
  }
}
const samples = await poller.done();

console.log(machineLine());
console.log(
  `limits: ${limits.maxRevisions} updates, ${limits.maxObjectsPerRevision} objects per section, ${limits.maxInflatedBytes / 1024 / 1024} MB inflated, ${limits.timeBudgetMs} ms`,
);
let within = true;
for (const row of rows) {
  const health = samples[row.name] ?? [];
  const worst = Math.max(...health);
  within &&= row.ms < 5_000 && worst < 200 && row.rss < 300;
  console.log(`\n${row.name}\n  answer ${row.status} ${row.answer.slice(0, 160)}`);
  console.log(
    `  took ${row.ms.toFixed(0)} ms; health max ${worst.toFixed(0)} ms, median ${median(health).toFixed(0)} ms over ${health.length} polls; peak RSS +${row.rss.toFixed(0)} MB`,
  );
}
console.log(`\n${within ? "every case within" : "NOT every case within"} the targets (answer < 5 s, health < 200 ms, RSS growth < 300 MB)`);
child.kill("SIGTERM");
process.exit(0);
