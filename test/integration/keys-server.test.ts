import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { captureOutput, latestCode, uniqueEmail } from "#test/helpers/keys-harness.ts";
import { type LocalApi, startLocalApi } from "#test/helpers/local-api.ts";

const output = captureOutput();
const secrets: string[] = [];

const dataDir = mkdtempSync(join(tmpdir(), "signet-keys-"));
let api: LocalApi | undefined;

/** start brings up the key routes on dataDir on a new container (a new process, as far as the instances go). */
async function start(): Promise<void> {
  api = await startLocalApi(
    "keys-server",
    // Every request asks the key store (no gateway-style decision cache): the 503 case below needs it.
    { SIGNET_TABLE: "signet-keys-server", SIGNET_AUTHORIZER_CACHE_SECONDS: "0", SIGNET_LOG_LEVEL: "DEBUG" },
    { dataDir, parts: "keys" },
  );
}
async function stop(): Promise<void> {
  await api?.close();
  api = undefined;
}
afterAll(async () => {
  output.stop();
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${api!.url}${path}`, { headers });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
}
/** signWith calls a protected route; anything but 401 means the key was accepted. */
async function signWith(authorization?: string) {
  const response = await fetch(`${api!.url}/v1/sign`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) },
    body: "{}",
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe("API keys over HTTP through the local server", () => {
  let email: string;
  let key: string;

  it("registers, reads the code from the SES store, verifies, and opens a protected route with the key", async () => {
    await start();
    email = uniqueEmail("server");
    const registered = await get(`/v1/auth/register?${q({ email })}`);
    expect(registered.status).toBe(200);
    expect(registered.json.expiresInSeconds).toBe(900);
    const code = await latestCode(api!.standIns.sesEndpoint, email);
    secrets.push(code);

    const verified = await get(`/v1/auth/verify?${q({ email, code })}`);
    expect(verified.status).toBe(200);
    key = verified.json.key as string;
    secrets.push(key);
    expect(key).toMatch(/^sgn_[0-9A-Za-z]{38}$/);

    // The key passed the authorizer when sign itself judges the (empty) body.
    const signed = await signWith(`Bearer ${key}`);
    expect(signed.status, JSON.stringify(signed.json)).toBe(400);
    expect(signed.json.code).toBe("VALIDATION_ERROR");
  });

  // One row: Authorization header (from the issued key), message pattern.
  const denials: Array<[string, (key: string) => string | undefined, RegExp]> = [
    ["no header", () => undefined, /Missing API key/],
    ["no Bearer scheme", (k) => k, /Malformed Authorization header/],
    ["a truncated key", (k) => `Bearer ${k.slice(0, -2)}`, /Malformed API key/],
    ["a mistyped key", (k) => `Bearer ${k.slice(0, 10)}${k[10] === "x" ? "y" : "x"}${k.slice(11)}`, /checksum does not match/],
    ["a well-formed key never issued", () => `Bearer sgn_oYfrlWeHC4H5FXqdeqt5colHAdYXtDbh4Kot9m`, /Unknown API key/],
  ];
  it.each(denials)("answers 401 AUTHENTICATION_ERROR for %s, saying which", async (_name, header, message) => {
    const result = await signWith(header(key));
    expect(result.status).toBe(401);
    expect(result.json).toMatchObject({ code: "AUTHENTICATION_ERROR", error: "Unauthorized", requestId: expect.any(String) });
    expect(result.json.message).toMatch(message);
  });

  it("answers 429 with Retry-After on the fourth code for one address", async () => {
    const address = uniqueEmail("server-limit");
    for (let i = 0; i < 3; i++) expect((await get(`/v1/auth/register?${q({ email: address })}`)).status).toBe(200);
    const limited = await get(`/v1/auth/register?${q({ email: address })}`);
    expect(limited.status).toBe(429);
    expect(limited.json.code).toBe("RATE_LIMIT_ERROR");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(800);
  });

  it("still accepts the key after a restart (dynalite kept in the data folder)", async () => {
    await stop();
    await start();
    const signed = await signWith(`Bearer ${key}`);
    expect(signed.status, JSON.stringify(signed.json)).toBe(400);
    expect(signed.json.code).toBe("VALIDATION_ERROR");
    // And a used code stays used across the restart.
    const again = await get(`/v1/auth/verify?${q({ email, code: secrets[0]! })}`);
    expect(again.status).toBe(422);
    expect(again.json.code).toBe("CODE_EXPIRED");
  });

  it("answers 503 when the key store is down, not 401 and not 500", async () => {
    await api!.standIns.close(); // dynalite gone, server still up
    const signed = await signWith(`Bearer ${key}`);
    expect(signed.status).toBe(503);
    expect(signed.json.code).toBe("SERVICE_UNAVAILABLE");
    const registered = await get(`/v1/auth/register?${q({ email: uniqueEmail("down") })}`);
    expect(registered.status).toBe(503);
  });

  it("never writes a code or a key to the log", () => {
    const text = output.text();
    expect(text).toMatch(/"message":"request"/);
    for (const secret of secrets) expect(text).not.toMatch(new RegExp(`(?<![0-9])${secret}(?![0-9])`));
  });
});
