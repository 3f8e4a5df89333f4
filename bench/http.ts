// npm run bench:http — the HTTP path as a client sees it: the real local server in its
// own process, a keep-alive client, sequential medians for sign 10 MB / 100 pages (base64 JSON) and
// sign 1 page, 8 concurrent clients on 1-page signs, and the server's peak RSS from /proc. Beside
// each row: the naive pdf-lib + @signpdf stack in-process in this same run, as a ratio, and
// @libpdf/core's own load + sign + save in-process (the goal of issue 37: Signet over HTTP at most
// 2x libpdf at 10 MB, 1.5x at 1 page).
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { benchPdfFile, libpdfPipeline, makeBenchPdf, naivePipeline, type Pipeline } from "./naive-stack.ts";
import { cpuMs, type ServerHandle, startServer } from "./server-process.ts";

const FIXTURES = join(process.cwd(), "test-output", "bench-http");
const BIG_RUNS = Number(process.env.BIG_RUNS ?? 20);
const SMALL_RUNS = Number(process.env.SMALL_RUNS ?? 200);
const WARMUP = 5;
const CONCURRENT_CLIENTS = 8;
const CONCURRENT_SECONDS = 10;

// ---- the server process -------------------------------------------------------------------

/** serverMain runs in the child: stand-ins, bootstrap, local server, one API key; prints them as JSON. */
async function serverMain(): Promise<void> {
  const { obtainKey, startLocalApi } = await import("#test/helpers/local-api.ts");
  const api = await startLocalApi("bench-http", {
    SIGNET_TABLE: "signet-bench-http",
    SIGNET_CONVERSION_MODE: "oneshot",
    SIGNET_LOG_LEVEL: process.env.SIGNET_LOG_LEVEL ?? "WARN",
    // Thousands of requests a minute from one key: the per-key limit (where the branch has one)
    // is raised so requests are still counted but never refused.
    SIGNET_KEY_RATE_LIMIT: "100000000",
    // The deployed gateway caches the authorizer's answer for 60 s; the local default (0) asks every time.
    SIGNET_AUTHORIZER_CACHE_SECONDS: process.env.SIGNET_AUTHORIZER_CACHE_SECONDS ?? "60",
  });
  const key = await obtainKey(api, "bench");
  if (process.env.BENCH_PROFILE) await listenForProfileCommands(process.env.BENCH_PROFILE);
  process.stdout.write(`${JSON.stringify({ url: api.url, key, pid: process.pid })}\n`);
  process.on("SIGTERM", () => void api.close().then(() => process.exit(0)));
}

/**
 * listenForProfileCommands (bench/profile-sign.ts): "start" and "stop" lines on stdin start and stop
 * the V8 CPU profiler of this process; "stop" writes the profile to `file` and answers "profiled".
 */
async function listenForProfileCommands(file: string): Promise<void> {
  const { Session } = await import("node:inspector/promises");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (text: string) => {
    void (async () => {
      for (const command of text.split("\n")) {
        if (command === "start") await session.post("Profiler.start");
        if (command === "stop") {
          const { profile } = await session.post("Profiler.stop");
          writeFileSync(file, JSON.stringify(profile));
          process.stdout.write("profiled\n");
        }
      }
    })();
  });
}

/** procStatus reads VmRSS and VmHWM (peak RSS) of a process, in bytes. */
function procStatus(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)![1]) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

// ---- the client ---------------------------------------------------------------------------

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENT_CLIENTS });

function post(url: string, key: string, body: Buffer): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/json", "content-length": body.length, authorization: `Bearer ${key}` } },
      (res) => {
        let bytes = 0;
        res.on("data", (chunk: Buffer) => (bytes += chunk.length));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const signBody = (pdf: Buffer) =>
  Buffer.from(
    JSON.stringify({
      document: { base64: pdf.toString("base64") },
      signer: { name: "Ada Lovelace", email: "ada@example.com", ip: "203.0.113.7", userAgent: "Mozilla/5.0" },
      auditTrail: [
        { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
        { type: "submit", timestamp: "2026-11-22T09:58:00Z" },
      ],
      eventId: "evt_bench",
    }),
  );

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** sequential gives the median wall time and the server's CPU time per request (steadier than wall time on a busy machine). */
async function sequential(server: ServerHandle, body: Buffer, runs: number): Promise<{ median: number; cpu: number }> {
  const url = `${server.url}/v1/sign`;
  for (let i = 0; i < WARMUP; i++) {
    const { status } = await post(url, server.key, body);
    if (status !== 200) throw new Error(`sign answered ${status}`);
  }
  const times: number[] = [];
  const cpuBefore = cpuMs(server.pid);
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await post(url, server.key, body);
    times.push(performance.now() - start);
  }
  return { median: median(times), cpu: (cpuMs(server.pid) - cpuBefore) / runs };
}

async function concurrent(server: ServerHandle, body: Buffer): Promise<{ rps: number; cpu: number }> {
  const url = `${server.url}/v1/sign`;
  const until = performance.now() + CONCURRENT_SECONDS * 1000;
  let done = 0;
  const start = performance.now();
  const cpuBefore = cpuMs(server.pid);
  await Promise.all(
    Array.from({ length: CONCURRENT_CLIENTS }, async () => {
      while (performance.now() < until) {
        const { status } = await post(url, server.key, body);
        if (status !== 200) throw new Error(`sign answered ${status}`);
        done++;
      }
    }),
  );
  return { rps: done / ((performance.now() - start) / 1000), cpu: (cpuMs(server.pid) - cpuBefore) / done };
}

// ---- the naive stack, in-process ------------------------------------------------------------

async function fixture(name: string, pages: number, noise: number): Promise<string> {
  return benchPdfFile(FIXTURES, name, pages, noise);
}

async function naiveMedian(pipeline: Pipeline, input: Buffer, runs: number): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await pipeline(input);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await pipeline(input);
    times.push(performance.now() - start);
  }
  return median(times);
}

/** naivePeakAboveIdle: the naive stack signing the file once in a fresh process (peak RSS minus warmed idle RSS). */
async function naiveMemoryChild(file: string): Promise<void> {
  const pipeline = await naivePipeline();
  const small = await makeBenchPdf(1, 0);
  await pipeline(small);
  (globalThis as { gc?: () => void }).gc?.();
  const idle = process.memoryUsage.rss();
  await pipeline(readFileSync(file));
  process.stdout.write(JSON.stringify({ above: procStatus(process.pid).peak - idle }));
}

function naivePeakAboveIdle(file: string): number {
  const child = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", "bench/http.ts", "--naive-memory", file], { encoding: "utf8" });
  if (child.status !== 0) throw new Error(`naive memory child failed: ${child.stderr}`);
  return (JSON.parse(child.stdout) as { above: number }).above;
}

// ---- main -----------------------------------------------------------------------------------

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const ms = (value: number) => `${value.toFixed(1)} ms`;

async function main(): Promise<void> {
  if (process.argv[2] === "--server") return serverMain();
  if (process.argv[2] === "--naive-memory") return naiveMemoryChild(process.argv[3]!);

  const bigFile = await fixture("100-pages-10mb.pdf", 100, 100_000);
  const oneFile = await fixture("1-page.pdf", 1, 0);
  const big = readFileSync(bigFile);
  const one = readFileSync(oneFile);
  const bigBody = signBody(big);
  const oneBody = signBody(one);

  const server = await startServer(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []);
  try {
    const idle = procStatus(server.pid).rss;
    const { median: bigMs, cpu: bigCpu } = await sequential(server, bigBody, BIG_RUNS);
    const afterBig = procStatus(server.pid);
    const { median: oneMs, cpu: oneCpu } = await sequential(server, oneBody, SMALL_RUNS);
    const { rps, cpu: rpsCpu } = await concurrent(server, oneBody);

    const naive = await naivePipeline();
    const naiveBig = await naiveMedian(naive, big, BIG_RUNS);
    const naiveOne = await naiveMedian(naive, one, SMALL_RUNS / 4);
    const naiveMemory = naivePeakAboveIdle(bigFile);
    const libpdf = await libpdfPipeline();
    const libpdfBig = await naiveMedian(libpdf, big, BIG_RUNS);
    const libpdfOne = await naiveMedian(libpdf, one, SMALL_RUNS / 4);

    const peakAbove = afterBig.peak - idle;
    console.log(
      `HTTP benchmark: Node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, load average ${loadavg()[0]!.toFixed(1)}; local server in its own process (log level WARN), keep-alive client.`,
    );
    console.log(
      `Inputs: ${(big.length / 1024 / 1024).toFixed(1)} MB / 100 pages (${(bigBody.length / 1024 / 1024).toFixed(1)} MB JSON), ${(one.length / 1024).toFixed(1)} KB / 1 page. Naive = pdf-lib + @signpdf in this process.\n`,
    );
    const rows: Array<[string, string, string, string, string]> = [
      [
        "sign 10 MB / 100 pages, base64 JSON",
        `median ${ms(bigMs)} (server CPU ${ms(bigCpu)} a request)`,
        "<= 150 ms",
        `naive in-process ${ms(naiveBig)}`,
        `HTTP/naive ${(bigMs / naiveBig).toFixed(2)}x`,
      ],
      [
        "sign 1 page",
        `median ${ms(oneMs)} (server CPU ${ms(oneCpu)} a request)`,
        "<= 10 ms",
        `naive in-process ${ms(naiveOne)}`,
        `HTTP/naive ${(oneMs / naiveOne).toFixed(2)}x`,
      ],
      [
        `sign 1 page, ${CONCURRENT_CLIENTS} concurrent clients`,
        `${rps.toFixed(0)} requests/s (server CPU ${ms(rpsCpu)} a request)`,
        ">= 250 requests/s",
        `naive in-process ${(1000 / naiveOne).toFixed(0)} requests/s (one core)`,
        `HTTP/naive ${(rps / (1000 / naiveOne)).toFixed(2)}x`,
      ],
      [
        "server peak RSS after 10 MB signs",
        `${mb(afterBig.peak)} (idle ${mb(idle)}, +${mb(peakAbove)} = ${(peakAbove / big.length).toFixed(1)}x the document)`,
        `<= idle + 15x (${mb(idle + 15 * big.length)})`,
        `naive peak above idle ${mb(naiveMemory)} (${(naiveMemory / big.length).toFixed(1)}x)`,
        `HTTP/naive ${(peakAbove / naiveMemory).toFixed(2)}x`,
      ],
    ];
    console.log("| through HTTP (local server, warm) | Signet | target | naive stack | ratio |");
    console.log("|---|---|---|---|---|");
    for (const row of rows) console.log(`| ${row.join(" | ")} |`);
    console.log("\n| against @libpdf/core (load + pdf.sign + bytes, in-process, same run) | Signet over HTTP | @libpdf/core | ratio | goal |");
    console.log("|---|---|---|---|---|");
    console.log(`| sign 10 MB / 100 pages | ${ms(bigMs)} | ${ms(libpdfBig)} | ${(bigMs / libpdfBig).toFixed(2)}x | <= 2x |`);
    console.log(`| sign 1 page | ${ms(oneMs)} | ${ms(libpdfOne)} | ${(oneMs / libpdfOne).toFixed(2)}x | <= 1.5x |`);
    console.log(
      `| sign 1 page, ${CONCURRENT_CLIENTS} clients | ${rps.toFixed(0)} requests/s | ${(1000 / libpdfOne).toFixed(0)} requests/s (one core) | ${(rps / (1000 / libpdfOne)).toFixed(2)}x | >= 250 requests/s |`,
    );
  } finally {
    server.child.kill("SIGTERM");
    agent.destroy();
  }
}

await main();
