import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { startLoopbackTsa, type LoopbackTsa } from "#test/helpers/pki/loopback-tsa.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";

// A job survives the local server's death: one job running (its timestamp authority never
// answers) and one queued behind it (one worker) when the server is SIGKILLed; the server started
// again on the same data folder, with a working TSA, finishes both.

let dataDir: string;
let tsa: LoopbackTsa;
let silent: net.Server;
let silentUrl: string;
const children: ChildProcess[] = [];
const sockets = new Set<net.Socket>();

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "signet-jobs-restart-"));
  tsa = await startLoopbackTsa();
  // Accepts the TSA request and never answers: the signing waits (for the timestamper's 10 s).
  silent = net.createServer((socket) => void sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  silentUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/`;
}, 60_000);

afterAll(async () => {
  for (const child of children) if (child.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, "SIGKILL");
  for (const socket of sockets) socket.destroy();
  silent?.close();
  await tsa?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** startChild starts a local server child on the shared data folder. */
async function startChild(env: Record<string, string>): Promise<{ child: ChildProcess; url: string; key: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", "test/helpers/jobs-server-child.ts", "jobs-restart", dataDir], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      SIGNET_LOG_LEVEL: "ERROR",
      SIGNET_CONVERSION_MODE: "oneshot",
      SIGNET_TABLE: "signet-jobs-restart",
      SIGNET_JOB_WORKERS: "1",
      SIGNET_KEY_RATE_LIMIT: "100000",
      ...env,
    },
    detached: true,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  children.push(child);
  const { url, key } = await new Promise<{ url: string; key: string }>((resolve, reject) => {
    child.once("message", (message) => resolve(message as { url: string; key: string }));
    child.once("exit", (code) => reject(new Error(`the server child exited (${code})`)));
  });
  return { child, url, key };
}

async function readJob(url: string, key: string, id: string) {
  const response = await fetch(`${url}/v1/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`GET /v1/jobs/${id} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as { status: string; result?: { url?: string } };
}

async function until(url: string, key: string, id: string, done: (status: string) => boolean) {
  for (;;) {
    const job = await readJob(url, key, id);
    if (done(job.status)) return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("a running and a queued job, their server killed, both finish after a restart on the same data", async () => {
  const input = await makePdf(1);
  const first = await startChild({ SIGNET_TSA_URL: silentUrl });
  const submit = async (eventId: string) => {
    const response = await fetch(`${first.url}/v1/sign`, {
      method: "POST",
      headers: { "content-type": "application/json", prefer: "respond-async", authorization: `Bearer ${first.key}` },
      body: JSON.stringify({
        document: { base64: input.toString("base64") },
        signer: { name: "Ada Lovelace", email: "ada@example.com" },
        auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
        eventId,
      }),
    });
    expect(response.status).toBe(202);
    return ((await response.json()) as { id: string }).id;
  };
  const running = await submit("evt_restart_running");
  await until(first.url, first.key, running, (status) => status === "running");
  const queued = await submit("evt_restart_queued");
  expect((await readJob(first.url, first.key, queued)).status).toBe("queued");
  process.kill(-first.child.pid!, "SIGKILL");
  await new Promise((resolve) => first.child.once("exit", resolve));

  const second = await startChild({ SIGNET_TSA_URL: tsa.url, SIGNET_TEST_KEY: first.key });
  for (const id of [running, queued]) {
    const job = await until(second.url, second.key, id, (status) => status !== "queued" && status !== "running");
    expect(job.status, id).toBe("succeeded");
    const answer = (await (await fetch(job.result!.url!)).json()) as { document: { base64: string } };
    await expectSignedPdf(Buffer.from(answer.document.base64, "base64"), { input });
  }
}, 240_000);
