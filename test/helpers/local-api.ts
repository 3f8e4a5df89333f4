// The local Signet API for integration tests over HTTP, the one way a test gets a running one:
// stand-ins on free ports, the local bootstrap (key table, signing identity, converter) and the
// local server, plus a real API key obtained the way a user gets one (register, code from the SES
// store, verify). Tests of the key routes alone start the "keys" parts only.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StandIns } from "#local/stand-ins.ts";
import { latestCode, uniqueEmail } from "#test/helpers/keys-harness.ts";

/** LocalApi is a running local server with its stand-ins. */
export interface LocalApi {
  url: string;
  standIns: StandIns;
  /** dataDir is SIGNET_DATA_DIR (dynalite files, signing identity); a temporary one is removed by close. */
  dataDir: string;
  /** postJson POSTs a JSON body, with `Authorization: Bearer <key>` when a key is given, and parses the JSON answer. */
  postJson(path: string, body: unknown, key?: string): Promise<{ status: number; json: Record<string, any> }>;
  close(): Promise<void>;
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
}

/**
 * startLocalApi starts the stand-ins (ports 0), puts `env`, SIGNET_DATA_DIR and the stand-in
 * endpoints into process.env, then imports and runs the local bootstrap and starts the local server
 * on 127.0.0.1:0. Each group of settings is read once, on first use, and the entry files build
 * their adapters when imported: call it before the test file imports any Signet module that reads
 * config (vitest gives each test file its own modules; a restart calls vi.resetModules() first).
 */
export async function startLocalApi(name: string, env: Record<string, string> = {}, options: LocalApiOptions = {}): Promise<LocalApi> {
  const { parts = "all" } = options;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), `signet-${name}-`));
  Object.assign(process.env, env, { SIGNET_DATA_DIR: dataDir });
  const { startStandIns } = await import("#local/stand-ins.ts");
  const started = await startStandIns({ dataDir, sesPort: 0 });
  // Closed once, whether a test stopped them early (a store outage) or close does.
  let closing: Promise<void> | undefined;
  const standIns: StandIns = { ...started, close: () => (closing ??= started.close()) };
  Object.assign(process.env, standIns.env);
  const { bootstrap, prepareIdentity } = await import("#local/bootstrap.ts");
  const { ensureKeyTable, keyStoreOptions } = await import("#adapters/dynamodb-key-store.ts");
  const shutdowns = parts === "all" ? await bootstrap() : await ensureKeyTable(keyStoreOptions()).then(() => []);
  const { startLocalServer } = await import("#local/server.ts");
  const server = await startLocalServer({ port: 0, host: "127.0.0.1" });
  // As local/main.ts: the identity once the port is known (a new one names the server's CRL URL).
  if (parts === "all") await prepareIdentity();
  return {
    url: server.url,
    standIns,
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
