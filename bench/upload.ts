// npm run bench:upload: signing a 20 MB PDF sent by upload reference (presigned POST to
// the local S3 stand-in, then document.upload) against the same PDF inline as base64 JSON, and a
// 25 MB PDF by reference. Each case runs against a fresh local server (stand-ins included) in a
// child process, so its peak RSS (getrusage high-water) is the server's alone: the client (this
// process) builds the request bodies. Medians over RUNS signatures after one warm-up sign.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PDFDocument, PDFName, StandardFonts } from "pdf-lib";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MB = 1024 * 1024;
const FIXTURES = join(process.cwd(), "test-output", "bench-upload");

async function largePdf(bytes: number): Promise<Buffer> {
  const path = join(FIXTURES, `${bytes}.pdf`);
  if (existsSync(path)) return readFileSync(path);
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < 3; i++) doc.addPage([595, 842]).drawText(`Contract page ${i + 1}`, { x: 60, y: 760, size: 24, font });
  // Incompressible bytes give the file its size (scans in real contracts).
  doc.catalog.set(PDFName.of("SignetPadding"), doc.context.register(doc.context.stream(randomBytes(bytes - 4096))));
  const pdf = Buffer.from(await doc.save({ useObjectStreams: false }));
  mkdirSync(FIXTURES, { recursive: true });
  writeFileSync(path, pdf);
  return pdf;
}

interface Server {
  url: string;
  ses: string;
  child: ChildProcess;
  ask<T>(message: string): Promise<T>;
}

function startServer(): Promise<Server> {
  const child = spawn(process.execPath, ["--import", "tsx", "bench/upload.ts", "--server"], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
  const next = <T>() => new Promise<T>((resolve) => child.once("message", (message) => resolve(message as T)));
  return next<{ url: string; ses: string }>().then(({ url, ses }) => ({
    url,
    ses,
    child,
    ask: <T>(message: string) => {
      const answer = next<T>();
      child.send(message);
      return answer;
    },
  }));
}

async function apiKey(server: Server): Promise<string> {
  const email = `bench-${Date.now()}@example.com`;
  await fetch(`${server.url}/v1/auth/register?email=${encodeURIComponent(email)}`);
  const store = (await (await fetch(`${server.ses}/store`)).json()) as { emails: Array<{ destination: { to: string[] }; body: { text: string } }> };
  const mail = store.emails.filter((m) => JSON.stringify(m.destination).includes(email)).at(-1);
  const code = /code is: (\d{6})/.exec(mail?.body.text ?? "")?.[1];
  const verified = (await (await fetch(`${server.url}/v1/auth/verify?email=${encodeURIComponent(email)}&code=${code}`)).json()) as { key: string };
  return verified.key;
}

const signBody = (document: Record<string, string>) =>
  JSON.stringify({ document, signer: { name: "Ada Lovelace", email: "ada@example.com" }, auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }] });

async function sign(server: Server, key: string, body: string): Promise<number> {
  const response = await fetch(`${server.url}/v1/sign`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body,
  });
  const answer = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`sign answered ${response.status}: ${answer.toString().slice(0, 200)}`);
  return answer.length;
}

async function uploadReference(server: Server, key: string, pdf: Buffer): Promise<string> {
  const grant = (await (await fetch(`${server.url}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}` } })).json()) as {
    upload: string;
    url: string;
    fields: Record<string, string>;
  };
  const form = new FormData();
  for (const [name, value] of Object.entries(grant.fields)) form.append(name, value);
  form.append("file", new Blob([pdf]), "contract.pdf");
  const posted = await fetch(grant.url, { method: "POST", body: form });
  if (posted.status !== 204) throw new Error(`upload answered ${posted.status}`);
  return grant.upload;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function runCase(name: string, pdf: Buffer, mode: "inline" | "upload"): Promise<void> {
  const server = await startServer();
  try {
    const key = await apiKey(server);
    await sign(server, key, signBody({ base64: (await largePdf(64 * 1024)).toString("base64") })); // warm-up: identity, fonts, code paths
    const base = await server.ask<{ rssKb: number }>("rss");
    const total: number[] = [];
    const signOnly: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      const body = mode === "inline" ? signBody({ base64: pdf.toString("base64") }) : signBody({ upload: await uploadReference(server, key, pdf) });
      const signStarted = performance.now();
      await sign(server, key, body);
      const ended = performance.now();
      total.push(ended - started);
      signOnly.push(ended - signStarted);
    }
    const { maxRssKb } = await server.ask<{ maxRssKb: number }>("rss");
    console.log(
      `${name.padEnd(28)} total ${median(total).toFixed(0).padStart(6)} ms   sign request ${median(signOnly).toFixed(0).padStart(6)} ms   ` +
        `server peak RSS ${(maxRssKb / 1024).toFixed(0).padStart(5)} MB (${((maxRssKb - base.rssKb) / 1024).toFixed(0)} MB above the warm server)`,
    );
  } finally {
    server.child.send("stop");
  }
}

async function main(): Promise<void> {
  const pdf20 = await largePdf(20 * MB);
  const pdf25 = await largePdf(25 * MB - 64 * 1024);
  console.log(`Signing by upload reference vs inline, local server with the S3 stand-in; medians of ${RUNS} runs, one server per case.\n`);
  await runCase("20 MB PDF inline (base64)", pdf20, "inline");
  await runCase("20 MB PDF by upload", pdf20, "upload");
  await runCase("25 MB PDF by upload", pdf25, "upload");
  console.log("\n'total' includes building the body (inline) or the presigned POST to the stand-in (upload).");
}

// ---- the server side (child process) ----
async function serve(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "signet-bench-upload-"));
  const { startLocalApi } = await import("#test/helpers/local-api.ts");
  const api = await startLocalApi("bench-upload", { SIGNET_TABLE: "signet-bench-upload", LOG_LEVEL: "ERROR", POWERTOOLS_LOG_LEVEL: "ERROR" }, { dataDir });
  const { standIns } = api;
  const server = api;
  process.on("message", (message: string) => {
    if (message === "rss") process.send!({ maxRssKb: process.resourceUsage().maxRSS, rssKb: Math.round(process.memoryUsage().rss / 1024) });
    if (message === "stop") {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    }
  });
  process.send!({ url: server.url, ses: standIns.sesEndpoint });
}

if (process.argv.includes("--server")) await serve();
else await main();
