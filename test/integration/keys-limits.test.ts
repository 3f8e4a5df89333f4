import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDynamoKeyStore } from "#adapters/dynamodb-key-store.ts";
import { SES_MAILBOX_SIMULATOR } from "#adapters/sesv2-mailer.ts";
import { call, getEvent, latestCode, mailsTo, uniqueEmail } from "#test/helpers/keys-harness.ts";
import { type LocalApi, startLocalApi } from "#test/helpers/local-api.ts";
import { authorize } from "#domain/keys/key-service.ts";
import { limitKeyRate } from "#domain/keys/key-rate.ts";
import { makeRegisterHandler } from "#functions/auth-register.ts";
import { makeListKeysHandler } from "#functions/keys-list.ts";
import { createContainer } from "#wiring/container.ts";
import { keyServiceDeps } from "#wiring/keys.ts";

let api: LocalApi;
/** storeOptions are the key table the server uses (SIGNET_TABLE below), in the stand-in. */
const storeOptions = () => ({ tableName: "signet-keys-limits", region: "us-east-1", endpoint: api.standIns.dynamodbEndpoint });

beforeAll(async () => {
  api = await startLocalApi(
    "keys-limits",
    {
      SIGNET_TABLE: "signet-keys-limits",
      SIGNET_REGISTER_IP_LIMIT: "1000",
      SIGNET_KEY_RATE_LIMIT: "3",
      // A personal deployment: one address (and its +tags) and one domain may register.
      SIGNET_REGISTER_ALLOW: "owner@example.com, @example.org",
    },
    { parts: "keys" },
  );
});
afterAll(async () => {
  await api?.close();
});

async function request(method: string, path: string, key?: string) {
  const response = await fetch(`${api.url}${path}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {} });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: JSON.parse(text) as Record<string, unknown> };
}
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

async function mint(email: string): Promise<string> {
  expect((await request("GET", `/v1/auth/register?${q({ email })}`)).status).toBe(200);
  const verified = await request("GET", `/v1/auth/verify?${q({ email, code: await latestCode(api.standIns.sesEndpoint, email) })}`);
  expect(verified.status, verified.text).toBe(200);
  return verified.json.key as string;
}

/**
 * freshMinute waits, when needed, until the current minute has 20 s left, so a burst of a few
 * requests falls in one counting window (not an assertion on time: the windows are aligned minutes).
 */
async function freshMinute(): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second > 40) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
}

describe("the per-key rate limit through the local server", () => {
  it("allows SIGNET_KEY_RATE_LIMIT requests per key per minute on authorised routes, then 429 with Retry-After", async () => {
    const email = uniqueEmail("rate").replace("example.com", "example.org");
    const key = await mint(email);
    const other = await mint(email);
    await freshMinute();

    // Different authorised routes share one count per key.
    expect((await request("GET", "/v1/keys", key)).status).toBe(200);
    expect((await request("POST", "/v1/sign", key)).status).toBe(415); // through the limit to sign's own check
    expect((await request("GET", "/v1/keys", key)).status).toBe(200);
    const refused = await request("POST", "/v1/sign", key);
    expect(refused.status, refused.text).toBe(429);
    expect(refused.json).toMatchObject({ code: "RATE_LIMIT_ERROR", error: "Too Many Requests" });
    expect(refused.json.message).toMatch(/at most 3 per 1 minute per key/);
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await request("GET", "/v1/keys", key)).status).toBe(429);

    // Another key of the same address has its own count; unauthorised routes have none.
    expect((await request("GET", "/v1/keys", other)).status).toBe(200);
    expect((await request("GET", "/v1/health")).status).toBe(200);
  });

  it("counts in the key table, so a second container sees the same count", async () => {
    const email = uniqueEmail("shared").replace("example.com", "example.org");
    const key = await mint(email);
    await freshMinute();
    for (let i = 0; i < 3; i++) expect((await request("GET", "/v1/keys", key)).status).toBe(200);

    const handler = makeListKeysHandler(createContainer(api.container.config));
    const event = getEvent("/v1/keys", {});
    // The authorizer's context for this key, as API Gateway hands it to the function.
    const decision = await authorize({ store: createDynamoKeyStore(storeOptions()), now: Date.now }, `Bearer ${key}`);
    expect(decision.allow).toBe(true);
    event.requestContext.authorizer = decision.allow ? { keyId: decision.keyId, email: decision.email } : null;
    const result = await call(handler, event);
    expect(result.status, JSON.stringify(result.json)).toBe(429);
    expect(result.headers["retry-after"]).toMatch(/^\d+$/);
  });
});

describe("the per-key limit's counting window", () => {
  it("refuses the request after the limit until the aligned minute ends, then counts afresh", async () => {
    const store = createDynamoKeyStore(storeOptions());
    let now = Date.UTC(2030, 0, 1, 12, 0, 15);
    const deps = { store, now: () => now, perMinute: 2 };
    const keyId = `key_${uniqueEmail("w")
      .slice(2, 18)
      .replace(/[^0-9A-Za-z]/g, "x")}`;
    await limitKeyRate(deps, keyId);
    await limitKeyRate(deps, keyId);
    now += 30_000; // 12:00:45
    await expect(limitKeyRate(deps, keyId)).rejects.toMatchObject({ code: "RATE_LIMIT_ERROR", retryAfterSeconds: 15 });
    now += 15_000; // 12:01:00, a new window
    await limitKeyRate(deps, keyId);
    await limitKeyRate(deps, keyId);
    await expect(limitKeyRate(deps, keyId)).rejects.toMatchObject({ retryAfterSeconds: 60 });
  });

  it("counts exactly under concurrency: 10 racing requests with a limit of 4 let 4 through", async () => {
    const deps = { store: createDynamoKeyStore(storeOptions()), now: () => Date.UTC(2030, 0, 1, 13, 0, 0), perMinute: 4 };
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => limitKeyRate(deps, "key_raceraceracerace")));
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(4);
  });

  it("lets the request through, and warns, when the counter cannot be reached", async () => {
    const warnings: unknown[] = [];
    const down = { countKeyRequest: () => Promise.reject(new Error("table unreachable")) };
    await limitKeyRate({ store: down, now: Date.now, perMinute: 1, warn: (...args) => warnings.push(args) }, "key_downdowndowndown");
    expect(warnings).toEqual([["per-key rate count failed; request allowed", { keyId: "key_downdowndowndown", error: "table unreachable" }]]);
  });
});

describe("the registration policy (SIGNET_REGISTER_ALLOW)", () => {
  const codeMails = async (email: string) =>
    (await mailsTo(api.standIns.sesEndpoint, email)).filter((mail) => mail.subject === "Your Signet verification code");

  it("sends codes to listed addresses (and their +tags) and listed domains", async () => {
    for (const email of ["owner@example.com", "Owner+laptop@Example.com", uniqueEmail("member").replace("example.com", "example.org")]) {
      const answer = await request("GET", `/v1/auth/register?${q({ email })}`);
      expect(answer.status, email).toBe(200);
      expect(await codeMails(email.replace(/@.*/, (domain) => domain.toLowerCase())), email).toHaveLength(1);
    }
  });

  it("answers every other address exactly the same, with no code and no mail to it", async () => {
    const allowed = await request("GET", `/v1/auth/register?${q({ email: uniqueEmail("member").replace("example.com", "example.org") })}`);
    for (const email of [uniqueEmail("stranger"), "someone@sub.example.org", "owner@example.net"]) {
      const answer = await request("GET", `/v1/auth/register?${q({ email })}`);
      expect(answer.status, email).toBe(200);
      expect(answer.json, email).toEqual(allowed.json);
      expect(await mailsTo(api.standIns.sesEndpoint, email), email).toHaveLength(0);
      const verify = await request("GET", `/v1/auth/verify?${q({ email, code: "123456" })}`);
      expect(verify.json.code, email).toBe("INVALID_CODE");
    }
  });

  it("takes the same steps for an address outside the list as for one on it: the same store calls and one mail of the same size", async () => {
    /** traced registers one address through the real store and mailer, recording every call each makes. */
    async function traced(email: string) {
      const steps: string[] = [];
      const mails: Array<{ to: string; size: number }> = [];
      const deps = keyServiceDeps(api.container);
      const store = new Proxy(deps.store, {
        get: (target, name) => {
          const real = target[name as keyof typeof target] as (...args: unknown[]) => Promise<unknown>;
          return (...args: unknown[]) => {
            // The bucket or item kind, without the address itself: the steps must match, not the keys.
            steps.push(`${String(name)}(${typeof args[0] === "string" ? args[0].replace(/#.*/, "#") : typeof args[0]})`);
            return real.apply(target, args);
          };
        },
      });
      const mailer = {
        send: async (message: { to: string; subject: string; text: string; html: string }) => {
          mails.push({ to: message.to, size: message.text.length + message.html.length + message.subject.length });
          steps.push("mail.send");
          await deps.mailer.send(message);
        },
      };
      const answer = await call(makeRegisterHandler(api.container, { ...deps, store, mailer }), getEvent("/v1/auth/register", { email }));
      return { answer, steps, mails };
    }
    const listed = await traced(uniqueEmail("member").replace("example.com", "example.org"));
    const outside = await traced(uniqueEmail("outsider"));
    expect(outside.answer.status).toBe(200);
    expect(outside.answer.json).toEqual(listed.answer.json);
    expect(outside.steps).toEqual(listed.steps);
    expect(listed.steps).toContain("putCode(object)");
    expect(listed.steps.at(-1)).toBe("mail.send");
    // One mail each, of the same size but for the address's length; the outsider's goes to SES's mailbox simulator.
    expect(outside.mails.map((mail) => mail.to)).toEqual([SES_MAILBOX_SIMULATOR]);
    expect(Math.abs(outside.mails[0]!.size - listed.mails[0]!.size)).toBeLessThan(100);
  });

  it("still counts the register limits for refused addresses, so a 429 reveals nothing either", async () => {
    const email = uniqueEmail("limited");
    for (let i = 0; i < 3; i++) expect((await request("GET", `/v1/auth/register?${q({ email })}`)).status).toBe(200);
    const fourth = await request("GET", `/v1/auth/register?${q({ email })}`);
    expect(fourth.status).toBe(429);
    expect(await mailsTo(api.standIns.sesEndpoint, email)).toHaveLength(0);
  });
});
