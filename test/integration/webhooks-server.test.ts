// The webhook secret routes through the real local server (stand-ins, key table, authorizer), and
// a webhook signed with what those routes show: the routes rotate, JobEvents on the same key table
// delivers to an HTTPS receiver, the reference verifier (standardwebhooks) checks it.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureOutput } from "#test/helpers/keys-harness.ts";
import { startLocalApi, obtainKey, type LocalApi } from "#test/helpers/local-api.ts";
import { createSafeWebhookSender } from "#adapters/safe-fetcher.ts";
import { createWebhookEvents } from "#wiring/webhooks.ts";
import { finishAndSweep, finishedJob, verifiedBy } from "#test/helpers/webhook-harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "#test/helpers/webhook-receiver.ts";

const output = captureOutput();
let api: LocalApi;
let receiver: WebhookReceiver;
let keys: { a: string; b: string };

beforeAll(async () => {
  api = await startLocalApi("webhooks", { SIGNET_TABLE: "signet-webhooks-server", SIGNET_LOG_LEVEL: "DEBUG" }, { parts: "keys" });
  const { logger } = await import("#adapters/powertools-logger.ts");
  logger.setLogLevel("DEBUG");
  receiver = await startWebhookReceiver();
  keys = { a: await obtainKey(api, "webhooks-a"), b: await obtainKey(api, "webhooks-b") };
}, 120_000);
afterAll(async () => {
  output.stop();
  await receiver?.close();
  await api?.close();
});

type SecretView = { secret: string; createdAt: string; previousSecretSignsUntil?: string };

async function call(method: "GET" | "POST", path: string, key?: string): Promise<{ status: number; json: Record<string, any>; headers: Headers }> {
  const response = await fetch(`${api.url}${path}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {} });
  return { status: response.status, json: (await response.json()) as Record<string, any>, headers: response.headers };
}
const readSecret = async (key: string) => (await call("GET", "/v1/webhooks/secret", key)).json as SecretView;
const keyIdOf = async (key: string) =>
  ((await (await fetch(`${api.url}/v1/keys`, { headers: { authorization: `Bearer ${key}` } })).json()) as any).keys.find((k: any) => k.current).id as string;

describe("GET /v1/webhooks/secret and POST /v1/webhooks/secret/rotate", () => {
  it("need an API key", async () => {
    expect((await call("GET", "/v1/webhooks/secret")).status).toBe(401);
    expect((await call("POST", "/v1/webhooks/secret/rotate")).status).toBe(401);
    expect((await call("GET", "/v1/webhooks/secret", "sgn_notAKeyAtAllnotAKeyAtAllnotAKey000000")).status).toBe(401);
  });

  it("show one whsec_ secret per key, the same on every read, another for another key, never cached", async () => {
    const first = await call("GET", "/v1/webhooks/secret", keys.a);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(first.json.previousSecretSignsUntil).toBeUndefined();
    expect(await readSecret(keys.a)).toEqual(first.json);
    expect((await readSecret(keys.b)).secret).not.toBe(first.json.secret);
  });

  it("rotate: a new secret, the replaced one signs for 24 hours more; only the caller's own secret changes", async () => {
    const [before, other] = [await readSecret(keys.a), await readSecret(keys.b)];
    const rotated = await call("POST", "/v1/webhooks/secret/rotate", keys.a);
    expect(rotated.status).toBe(200);
    const view = rotated.json as SecretView;
    expect(view.secret).not.toBe(before.secret);
    const overlap = Date.parse(view.previousSecretSignsUntil!) - Date.parse(view.createdAt);
    expect(overlap).toBe(24 * 3_600_000);
    expect(await readSecret(keys.a)).toEqual(view);
    expect(await readSecret(keys.b)).toEqual(other);
  });

  it("a webhook sent after the rotation verifies with the secret the route showed before it and with the one it shows now", async () => {
    const old = await readSecret(keys.b);
    const fresh = (await call("POST", "/v1/webhooks/secret/rotate", keys.b)).json as SecretView;
    const { config } = api.container;
    const events = createWebhookEvents(config, {
      sender: createSafeWebhookSender({ allowAddresses: ["127.0.0.1"], ca: [receiver.ca], timeoutMs: config.webhooks.timeoutMs }),
    });
    const jobId = `job_${randomUUID()}`;
    await finishAndSweep(events, finishedJob(jobId, await keyIdOf(keys.b), receiver.url()));
    const received = receiver.received.find((one) => JSON.parse(one.body).data.id === jobId)!;
    expect(verifiedBy(old.secret, received)).toMatchObject({ type: "job.succeeded", data: { id: jobId } });
    expect(verifiedBy(fresh.secret, received)).toMatchObject({ type: "job.succeeded", data: { id: jobId } });
    const stranger = (await readSecret(keys.a)).secret;
    expect(() => verifiedBy(stranger, received)).toThrow(/signature/i);
  });

  it("no secret reaches a log line (DEBUG)", async () => {
    const secrets = [(await readSecret(keys.a)).secret, (await readSecret(keys.b)).secret];
    const text = output.text();
    expect(text).toContain('"message":"request"'); // the requests were logged at all
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice("whsec_".length, 30));
    }
  });
});
