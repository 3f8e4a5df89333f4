// The local Signet API for integration tests over HTTP, the one way a test gets a running one:
// stand-ins on free ports, the local bootstrap (key table, signing identity, converter) and the
// local server, plus a real API key obtained the way a user gets one (register, code from the SES
// store, verify). Tests of the key routes alone start the "keys" parts only.
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "#config";
import { ensureKeyTable } from "#adapters/dynamodb-key-store.ts";
import { guardUncaughtExceptions } from "#adapters/process-guard.ts";
import { bootstrap, prepareIdentity } from "#local/bootstrap.ts";
import { answerRequestThatThrew, startLocalServer } from "#local/server.ts";
import { startStandIns, type StandIns } from "#local/stand-ins.ts";
import { createContainer, type Container, type Parts } from "#wiring/container.ts";
import { keyStoreOptions } from "#wiring/keys.ts";
import { latestCode, uniqueEmail } from "#test/helpers/keys-harness.ts";

/** LocalApi is a running local server with its stand-ins. */
export interface LocalApi {
  url: string;
  standIns: StandIns;
  /** container is the server's: its config and instances (the key store, the converter, the identity). */
  container: Container;
  /** dataDir is SIGNET_DATA_DIR (dynalite files, signing identity); a temporary one is removed by close. */
  dataDir: string;
  /** postJson POSTs a JSON body, with `Authorization: Bearer <key>` when a key is given, and parses the JSON answer. */
  postJson(path: string, body: unknown, key?: string): Promise<{ status: number; json: Record<string, any> }>;
  close(): Promise<void>;
}

/**
 * postOnOwnConnection POSTs a JSON body on a connection of its own (agent: false) and parses the
 * JSON answer: a test that runs pyHanko synchronously in the server's process blocks its event loop,
 * and a kept-alive socket whose idle timer ran out meanwhile resets the next request.
 */
export function postOnOwnConnection(url: string, body: unknown, key?: string): Promise<{ status: number; json: Record<string, any> }> {
  const headers = { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) };
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: "POST", agent: false, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString("utf8")) }));
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(JSON.stringify(body));
  });
}

/** LocalApiOptions choose where the data lives and how much of the local installation starts. */
export interface LocalApiOptions {
  /** The data folder, kept by close (a restart on the same data); default a new temporary one. */
  dataDir?: string;
  /**
   * "all" (default) starts what `npm start` starts; "keys" only the stand-ins, the key table and
   * the server (no converter warm-up, no signing identity), for the key routes' tests.
   */
  parts?: "all" | "keys";
  /** Parts of the server's container to use instead of those its config would build (a fault a test cannot provoke for real). */
  overrides?: Partial<Parts>;
}

/**
 * startLocalApi starts the stand-ins (ports 0), builds a container on `env` over process.env (read,
 * never written) plus SIGNET_DATA_DIR and the stand-in endpoints, runs the local bootstrap on it
 * and starts the local server on 127.0.0.1:0. Several may run in one test file, each with its own
 * settings. The SDK clients sign with the stand-ins' credentials from the container's config
 * (`config.credentials`; under vitest the same pair is in the environment, vitest.config.ts).
 */
export async function startLocalApi(name: string, env: Record<string, string> = {}, options: LocalApiOptions = {}): Promise<LocalApi> {
  const { parts = "all" } = options;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `signet-${name}-`));
  const settings = { ...process.env, ...env, SIGNET_DATA_DIR: dataDir };
  const started = await startStandIns({ dataDir, sesPort: 0, env: settings });
  // Closed once, whether a test stopped them early (a store outage) or close does.
  let closing: Promise<void> | undefined;
  const standIns: StandIns = { ...started, close: () => (closing ??= started.close()) };
  const container = createContainer(loadConfig({ ...settings, ...standIns.env }), options.overrides);
  const shutdowns = parts === "all" ? await bootstrap(container) : await ensureKeyTable(keyStoreOptions(container.config)).then(() => []);
  // As local/main.ts: one request's uncaught error answers that request 500, the server carries on.
  guardUncaughtExceptions(answerRequestThatThrew);
  const server = await startLocalServer({ port: 0, host: "127.0.0.1", container });
  // As local/main.ts: the identity once the port is known (a new one names the server's CRL URL).
  if (parts === "all") await prepareIdentity(container);
  return {
    url: server.url,
    standIns,
    container,
    dataDir,
    async postJson(path, body, key) {
      const response = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as Record<string, any> };
    },
    async close() {
      await server.close();
      for (const shutdown of shutdowns) await shutdown();
      await standIns.close();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** obtainKey registers a fresh address, reads its code from the SES store and verifies it: a real API key. */
export async function obtainKey(api: LocalApi, tag: string): Promise<string> {
  const email = uniqueEmail(tag);
  const registered = await fetch(`${api.url}/v1/auth/register?email=${encodeURIComponent(email)}`);
  if (registered.status !== 200) throw new Error(`register answered ${registered.status}`);
  const code = await latestCode(api.standIns.sesEndpoint, email);
  const verified = await fetch(`${api.url}/v1/auth/verify?email=${encodeURIComponent(email)}&code=${code}`);
  if (verified.status !== 200) throw new Error(`verify answered ${verified.status}`);
  return ((await verified.json()) as { key: string }).key;
}
