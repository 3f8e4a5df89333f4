// npm run bench:jobs — async jobs as a client sees them: the real local server in its own process,
// a keep-alive client, 1-page signs. Rows: time to 202 (Prefer: respond-async) beside the sync
// path's time to 200 for the same sign (p50/p95); end-to-end job latency (submit, poll every 25 ms,
// fetch the result) beside the sync sign; jobs finished per second with 8 clients beside sync signs
// per second with 8 clients. Goal: p95 time to 202 under 50 ms.
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import { cpus, loadavg } from "node:os";
import { makePdf } from "#test/helpers/pdf-builder.ts";

const RUNS = Number(process.env.RUNS ?? 100);
const WARMUP = 5;
const CLIENTS = 8;
const SECONDS = Number(process.env.SECONDS ?? 10);
const POLL_MS = Number(process.env.POLL_MS ?? 25);

/** serverMain runs in the child: the whole local API and one API key, printed as JSON. */
async function serverMain(): Promise<void> {
  const { obtainKey, startLocalApi } = await import("#test/helpers/local-api.ts");
  const api = await startLocalApi("bench-jobs", {
    SIGNET_TABLE: "signet-bench-jobs",
    SIGNET_CONVERSION_MODE: "oneshot",
    SIGNET_LOG_LEVEL: process.env.SIGNET_LOG_LEVEL ?? "WARN",
    SIGNET_KEY_RATE_LIMIT: "100000000",
    SIGNET_AUTHORIZER_CACHE_SECONDS: "60",
    SIGNET_JOB_WORKERS: process.env.SIGNET_JOB_WORKERS ?? String(CLIENTS),
  });
  const key = await obtainKey(api, "bench");
  process.stdout.write(`${JSON.stringify({ url: api.url, key })}\n`);
  process.on("SIGTERM", () => void api.close().then(() => process.exit(0)));
}

function startServer(): Promise<{ url: string; key: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/jobs.ts", "--server"], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (text: string) => {
      buffered += text;
      const line = buffered.split("\n").find((candidate) => candidate.startsWith('{"url"'));
      if (line) resolve({ ...(JSON.parse(line) as { url: string; key: string }), child });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS * 2 });

function call(url: string, options: { method?: string; headers?: Record<string, string>; body?: Buffer }): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? "GET", agent, headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const row = (name: string, values: number[]) =>
  `${name.padEnd(44)} p50 ${percentile(values, 50).toFixed(1).padStart(7)} ms   p95 ${percentile(values, 95).toFixed(1).padStart(7)} ms   (n=${values.length})`;

/** clientOf is the three calls the rows time: a sync sign, a submission (its job id), and reading a job to its result. */
async function clientOf(server: { url: string; key: string }) {
  const pdf = await makePdf(1);
  let serial = 0;
  const body = () =>
    Buffer.from(
      JSON.stringify({
        document: { base64: pdf.toString("base64") },
        signer: { name: "Ada Lovelace", email: "ada@example.com" },
        auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
        eventId: `evt_bench_${serial++}`,
      }),
    );
  const headers = { "content-type": "application/json", authorization: `Bearer ${server.key}` };
  const sync = async () => {
    const answer = await call(`${server.url}/v1/sign`, { method: "POST", headers, body: body() });
    if (answer.status !== 200) throw new Error(`sync sign answered ${answer.status}`);
  };
  const submit = async () => {
    const answer = await call(`${server.url}/v1/sign`, { method: "POST", headers: { ...headers, prefer: "respond-async" }, body: body() });
    if (answer.status !== 202) throw new Error(`async sign answered ${answer.status}: ${answer.body}`);
    return (JSON.parse(answer.body.toString("utf8")) as { id: string }).id;
  };
  const finish = async (id: string) => {
    for (;;) {
      const read = await call(`${server.url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${server.key}` } });
      const job = JSON.parse(read.body.toString("utf8")) as { status: string; result?: { url?: string } };
      if (job.status === "succeeded") {
        const result = await call(job.result!.url!, {});
        if (result.status !== 200) throw new Error(`result answered ${result.status}`);
        return;
      }
      if (job.status !== "queued" && job.status !== "running") throw new Error(`job ${id} ${job.status}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  };
  return { sync, submit, finish };
}

async function main(): Promise<void> {
  const server = await startServer();
  const { sync, submit, finish } = await clientOf(server);
  const timed = async (work: () => Promise<unknown>) => {
    const start = performance.now();
    await work();
    return performance.now() - start;
  };

  for (let i = 0; i < WARMUP; i++) {
    await sync();
    await finish(await submit());
  }
  const syncMs: number[] = [];
  const acceptedMs: number[] = [];
  const endToEndMs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    syncMs.push(await timed(sync));
    let id = "";
    acceptedMs.push(await timed(async () => (id = await submit())));
    // Let the job finish before the next submission, so 202s are timed on an idle pool.
    await finish(id);
  }
  for (let i = 0; i < RUNS; i++) endToEndMs.push(await timed(async () => finish(await submit())));

  const throughput = async (work: () => Promise<unknown>) => {
    let done = 0;
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (performance.now() < until) {
          await work();
          done++;
        }
      }),
    );
    return done / SECONDS;
  };
  const syncPerSecond = await throughput(sync);
  const jobsPerSecond = await throughput(async () => finish(await submit()));

  process.stdout.write(
    [
      `bench:jobs  ${new Date().toISOString()}  ${cpus().length} cores, load ${loadavg()
        .map((value) => value.toFixed(1))
        .join(" ")}  (1-page sign, local server, ${process.env.SIGNET_JOB_WORKERS ?? CLIENTS} job workers, poll ${POLL_MS} ms)`,
      row("sync sign: time to 200", syncMs),
      row("async sign: time to 202 (goal p95 < 50 ms)", acceptedMs),
      row("async sign: end to end (202, poll, result)", endToEndMs),
      `${"throughput, 8 clients, sync signs".padEnd(44)} ${syncPerSecond.toFixed(1)} /s`,
      `${"throughput, 8 clients, jobs end to end".padEnd(44)} ${jobsPerSecond.toFixed(1)} /s`,
      "",
    ].join("\n"),
  );
  server.child.kill("SIGTERM");
  agent.destroy();
}

if (process.argv.includes("--server")) await serverMain();
else await main();
