import { DynamoDBClient, ScanCommand } from "@aws-sdk/client-dynamodb";
import type { APIGatewayAuthorizerResult } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDynamoKeyStore, ensureKeyTable } from "#adapters/dynamodb-key-store.ts";
import { createSesMailer } from "#adapters/sesv2-mailer.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { KeyStore } from "#domain/keys/key-store.ts";
import type { KeyServiceDeps, VerifyDeps } from "#domain/keys/key-service.ts";
import { DYNAMODB_CLIENT_LIMITS } from "#functions/timeouts.ts";
import { startStandIns, type StandIns } from "#local/stand-ins.ts";
import { makeRegisterHandler } from "#functions/auth-register.ts";
import { makeVerifyHandler } from "#functions/auth-verify.ts";
import { createAuthorizer } from "#functions/authorizer.ts";
import { testContainer } from "#test/helpers/container.ts";
import type { Container } from "#wiring/container.ts";
import { authorizerDeps } from "#wiring/keys.ts";
import {
  call,
  captureOutput,
  closedPort,
  getEvent,
  latestCode,
  mailsTo,
  startRefusingSes,
  startSilentServer,
  uniqueEmail,
  type CallResult,
} from "#test/helpers/keys-harness.ts";
import { generateApiKey } from "#domain/keys/api-key.ts";

const output = captureOutput();
// Every code and key the tests see; none may ever appear in the log output.
const secrets: string[] = [];

let standIns: StandIns;
let container: Container;
let register: unknown;
let verify: unknown;
let authorizer: (token: string | undefined) => Promise<APIGatewayAuthorizerResult>;
/** storeOptions are the key table the handlers use (SIGNET_TABLE below), in the stand-in. */
const storeOptions = () => ({ tableName: "signet-keys-handlers", region: "us-east-1", endpoint: standIns.dynamodbEndpoint });
const methodArn = "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/POST/v1/sign";

beforeAll(async () => {
  standIns = await startStandIns({ sesPort: 0 });
  container = testContainer({
    ...standIns.env,
    SIGNET_TABLE: "signet-keys-handlers",
    SIGNET_REGISTER_IP_LIMIT: "1000",
    // Every call comes from one address here; the per-source limit has its own test (keys-oracle).
    SIGNET_VERIFY_IP_FAILURE_LIMIT: "1000",
    // The most the logger writes: no secret may reach even a DEBUG line.
    SIGNET_LOG_LEVEL: "DEBUG",
  });
  await ensureKeyTable(storeOptions());
  register = makeRegisterHandler(container);
  verify = makeVerifyHandler(container);
  const authorize = createAuthorizer(authorizerDeps(container));
  authorizer = (token) => authorize({ type: "TOKEN", authorizationToken: token as string, methodArn });
});
afterAll(async () => {
  output.stop();
  await standIns?.close();
});

/** registerWith and verifyWith make the entry files' handlers on deps of the test's own (a clock, a failing mailer, limits). */
const registerWith = (deps: KeyServiceDeps) => makeRegisterHandler(container, deps);
const verifyWith = (deps: VerifyDeps) => makeVerifyHandler(container, deps);

const doRegister = (email: string, handler: unknown = register, ip?: string) => call(handler, getEvent("/v1/auth/register", { email }, ip));
const doVerify = async (email: string, code: string, handler: unknown = verify) => {
  const result = await call(handler, getEvent("/v1/auth/verify", { email, code }));
  if (typeof result.json.key === "string") secrets.push(result.json.key);
  return result;
};
async function codeFor(email: string): Promise<string> {
  const code = await latestCode(standIns.sesEndpoint, email);
  secrets.push(code);
  return code;
}
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

/** deps builds the real adapters with test overrides (a clock, a failing mailer, limits). */
function deps(overrides: Partial<KeyServiceDeps & VerifyDeps> = {}): KeyServiceDeps & VerifyDeps {
  return {
    store: createDynamoKeyStore(storeOptions()),
    mailer: createSesMailer({ sender: "noreply@signet.local", region: "us-east-1", endpoint: standIns.sesEndpoint }),
    now: Date.now,
    limits: {
      perAddress: { limit: 3, windowSeconds: 900 },
      perAddressDaily: { limit: 10, windowSeconds: 86_400 },
      perIp: { limit: 1000, windowSeconds: 3600 },
    },
    failuresPerSource: { limit: 1000, windowSeconds: 900 },
    ...overrides,
  };
}

/** counting wraps a store so each call is counted by method name. */
function counting(store: KeyStore): { store: KeyStore; calls: Record<string, number>; total: () => number } {
  const calls: Record<string, number> = {};
  const wrapped = Object.fromEntries(
    Object.entries(store).map(([name, fn]) => [
      name,
      (...args: unknown[]) => {
        calls[name] = (calls[name] ?? 0) + 1;
        return (fn as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as unknown as KeyStore;
  return { store: wrapped, calls, total: () => Object.values(calls).reduce((a, b) => a + b, 0) };
}

async function scanItems(filter: string, values: Record<string, string>) {
  const client = new DynamoDBClient({ endpoint: standIns.dynamodbEndpoint, region: "us-east-1" });
  const out = await client.send(
    new ScanCommand({
      TableName: "signet-keys-handlers",
      FilterExpression: filter,
      ExpressionAttributeValues: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, { S: v }])),
    }),
  );
  client.destroy();
  return out.Items ?? [];
}

async function issueKey(tag: string): Promise<{ email: string; key: string }> {
  const email = uniqueEmail(tag);
  expect((await doRegister(email)).status).toBe(200);
  const result = await doVerify(email, await codeFor(email));
  expect(result.status).toBe(200);
  return { email, key: result.json.key as string };
}

function expectError(result: CallResult, status: number, code: string, message?: RegExp) {
  expect(result.status, JSON.stringify(result.json)).toBe(status);
  expect(result.json).toMatchObject({ code, requestId: expect.any(String), message: expect.any(String) });
  if (message) expect(result.json.message).toMatch(message);
}

describe("register and verify through the handlers", () => {
  it("sends a code by SES, exchanges it for a key the authorizer accepts, and sends a notice without the key", async () => {
    const email = uniqueEmail("flow");
    const registered = await doRegister(email);
    expect(registered.status).toBe(200);
    expect(registered.json).toEqual({ message: expect.stringMatching(/code is on its way/), expiresInSeconds: 900 });
    expect(registered.headers["cache-control"]).toBe("no-store");

    const [mail] = await mailsTo(standIns.sesEndpoint, email);
    expect(mail!.body.text).toMatch(/expires in 15 minutes/);
    expect(mail!.body.text).toMatch(/did not ask for an API key, ignore this e-mail/);
    expect(mail!.body.html).toContain("<p");
    const code = await codeFor(email);

    const verified = await doVerify(email, code);
    expect(verified.status).toBe(200);
    expect(verified.json).toEqual({
      key: expect.stringMatching(/^sgn_[0-9A-Za-z]{38}$/),
      email,
      createdAt: expect.any(String),
      message: "store this key now: it cannot be shown again",
    });
    expect(verified.headers["cache-control"]).toBe("no-store");
    const key = verified.json.key as string;

    const decision = await authorizer(`Bearer ${key}`);
    expect(decision.policyDocument.Statement[0]).toMatchObject({ Effect: "Allow", Resource: "arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*" });
    expect(decision.context).toEqual({ keyId: expect.stringMatching(/^key_[0-9A-Za-z]{16}$/), email });
    expect(decision.principalId).toBe(decision.context!.keyId);

    const notice = (await mailsTo(standIns.sesEndpoint, email)).find((m) => m.subject === "A new Signet API key was created");
    expect(notice!.body.text).toContain(`sgn_...${key.slice(-4)}`);
    expect(`${notice!.body.text}${notice!.body.html}`).not.toContain(key.slice(4, 36));

    // Only hashes are stored: neither the key nor the code appears in any item.
    const items = await scanItems("contains(pk, :a) OR email = :a", { ":a": email.toLowerCase() });
    expect(items.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(items)).not.toContain(key);
    expect(JSON.stringify(items)).not.toContain(`"${code}"`);
    const keyItem = items.find((item) => item.sk?.S === "KEY")!;
    expect(keyItem).toMatchObject({ email: { S: email }, createdAt: { S: verified.json.createdAt }, lastUsedAt: expect.any(Object) });
  });

  it("answers register identically for an address that holds a key and one that does not", async () => {
    const known = await issueKey("known");
    const unknown = uniqueEmail("unknown");
    const [a, b] = [await doRegister(known.email), await doRegister(unknown)];
    expect(a.status).toBe(b.status);
    expect(a.json).toEqual(b.json);
    const strip = (headers: Record<string, string>) =>
      Object.keys(headers)
        .filter((h) => h !== "x-request-id")
        .sort();
    expect(strip(a.headers)).toEqual(strip(b.headers));
  });

  it("lets an address hold several keys: each verify issues a new one", async () => {
    const first = await issueKey("several");
    expect((await doRegister(first.email)).status).toBe(200);
    const second = await doVerify(first.email, await codeFor(first.email));
    expect(second.status).toBe(200);
    expect(second.json.key).not.toBe(first.key);
    for (const key of [first.key, second.json.key as string]) {
      expect((await authorizer(`Bearer ${key}`)).policyDocument.Statement[0]!.Effect).toBe("Allow");
    }
  });

  it("matches codes case-insensitively on the address and keeps the address as given", async () => {
    const email = uniqueEmail("Mixed.Case");
    expect((await doRegister(`  ${email.replace("example.com", "EXAMPLE.com")} `)).status).toBe(200);
    const code = await codeFor(email);
    const verified = await doVerify(email.toLowerCase(), code);
    expect(verified.status).toBe(200);
    expect(verified.json.email).toBe(email.toLowerCase());
  });

  // One row: endpoint, query, offending field.
  const badQueries: Array<[string, "register" | "verify", Record<string, string>, string]> = [
    ["a header-injection address", "register", { email: "me@example.com\r\nBcc: victim@example.org" }, "query.email"],
    ["two addresses", "register", { email: "me@example.com,you@example.com" }, "query.email"],
    ["an address without a domain", "register", { email: "me@" }, "query.email"],
    ["an extra parameter", "register", { email: "me@example.com", code: "123456" }, "query"],
    ["a 5-digit code", "verify", { email: "me@example.com", code: "12345" }, "query.code"],
    ["a code with letters", "verify", { email: "me@example.com", code: "12a456" }, "query.code"],
    ["a bad address on verify", "verify", { email: "not an address", code: "123456" }, "query.email"],
  ];
  it.each(badQueries)("answers 400 for %s", async (_name, endpoint, query, field) => {
    const result = await call(endpoint === "register" ? register : verify, getEvent(`/v1/auth/${endpoint}`, query));
    expectError(result, 400, "VALIDATION_ERROR");
    expect(result.json.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
  });
});

describe("code rules", () => {
  it("kills the code on the fifth wrong try from the network that asked for it (then refused even with the right code)", async () => {
    const email = uniqueEmail("wrong");
    await doRegister(email);
    const code = await codeFor(email);
    for (let i = 0; i < 5; i++) {
      const result = await doVerify(email, wrongCode(code));
      expectError(result, 422, "INVALID_CODE", /does not work for this address/);
      // No count of remaining tries: the answer must not differ from "no code pending".
      expect(result.json.details).toEqual([{ field: "query.code", issue: "not a working code for this address" }]);
    }
    expectError(await doVerify(email, code), 422, "INVALID_CODE", /does not work for this address/);

    // A new code starts afresh.
    await doRegister(email);
    expect((await doVerify(email, await codeFor(email))).status).toBe(200);
  });

  it("refuses an expired code (clock moved past 15 minutes) and accepts it just before", async () => {
    const email = uniqueEmail("expired");
    await doRegister(email);
    const code = await codeFor(email);
    const later = verifyWith(deps({ now: () => Date.now() + 15 * 60 * 1000 + 1 }));
    expectError(await doVerify(email, code, later), 422, "CODE_EXPIRED", /expired/);
    const almost = verifyWith(deps({ now: () => Date.now() + 14 * 60 * 1000 }));
    expect((await doVerify(email, code, almost)).status).toBe(200);
  });

  it("answers no code pending exactly as a wrong code, and CODE_EXPIRED only to the holder of a used code", async () => {
    const email = uniqueEmail("nocode");
    const none = await doVerify(email, "123456");
    expectError(none, 422, "INVALID_CODE", /does not work for this address/);
    await doRegister(email);
    const code = await codeFor(email);
    const wrong = await doVerify(email, wrongCode(code));
    expect({ ...wrong.json, requestId: "" }).toEqual({ ...none.json, requestId: "" });
    expect(wrong.headers["retry-after"]).toBe(none.headers["retry-after"]);
    expect((await doVerify(email, code)).status).toBe(200);
    expectError(await doVerify(email, code), 422, "CODE_EXPIRED", /already been used/);
    expect((await doVerify(email, wrongCode(code))).json).toMatchObject({ code: "INVALID_CODE", message: none.json.message });
  });

  it("mints exactly one key from 20 concurrent verify calls with the right code", async () => {
    const email = uniqueEmail("race");
    await doRegister(email);
    const code = await codeFor(email);
    const results = await Promise.all(Array.from({ length: 20 }, () => doVerify(email, code)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    for (const loser of results.filter((r) => r.status !== 200)) expectError(loser, 422, "CODE_EXPIRED", /already been used/);
    expect(await scanItems("email = :e AND sk = :k", { ":e": email, ":k": "KEY" })).toHaveLength(1);
  });

  it("counts concurrent wrong tries exactly: 20 racing wrong codes leave the code dead, never more than 5 counted", async () => {
    const email = uniqueEmail("wrongrace");
    await doRegister(email);
    const code = await codeFor(email);
    const store = counting(createDynamoKeyStore(storeOptions()));
    const verifying = verifyWith(deps({ store: store.store }));
    const results = await Promise.all(Array.from({ length: 20 }, () => doVerify(email, wrongCode(code), verifying)));
    expect(results.filter((r) => r.json.code === "INVALID_CODE")).toHaveLength(20);
    expect((await store.store.getCode(email))?.wrongTries).toBe(5); // the other 15 found the code dead: refused, not counted
    expectError(await doVerify(email, code), 422, "INVALID_CODE");
  });
});

describe("register rate limits", () => {
  it("allows 3 codes per address in 15 minutes, then answers 429 with Retry-After (case variants included)", async () => {
    const email = uniqueEmail("limit");
    for (let i = 0; i < 3; i++) expect((await doRegister(email)).status).toBe(200);
    const limited = await doRegister(email.toUpperCase().replace("EXAMPLE.COM", "example.com"));
    expectError(limited, 429, "RATE_LIMIT_ERROR", /at most 3 per 15 minutes/);
    const retryAfter = Number(limited.headers["retry-after"]);
    expect(retryAfter).toBeGreaterThan(880);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect((await mailsTo(standIns.sesEndpoint, email)).length).toBe(3);
  });

  it("limits per source IP in a sliding window and frees up when the window has passed", async () => {
    let now = Date.now();
    const handler = registerWith(deps({ now: () => now, limits: { ...deps().limits, perIp: { limit: 2, windowSeconds: 3600 } } }));
    const ip = "198.51.100.23";
    expect((await doRegister(uniqueEmail("ip"), handler, ip)).status).toBe(200);
    now += 60_000;
    expect((await doRegister(uniqueEmail("ip"), handler, ip)).status).toBe(200);
    const limited = await doRegister(uniqueEmail("ip"), handler, ip);
    expectError(limited, 429, "RATE_LIMIT_ERROR", /from your network/);
    expect(Number(limited.headers["retry-after"])).toBe(3540);
    expect((await doRegister(uniqueEmail("ip"), handler, "198.51.100.24")).status).toBe(200);
    now += 3540_000; // the first request left the window
    expect((await doRegister(uniqueEmail("ip"), handler, ip)).status).toBe(200);
    expect((await doRegister(uniqueEmail("ip"), handler, ip)).status).toBe(429);
  });

  it("counts an IPv6 client per /64 network and an IPv4-mapped address as its IPv4 address", async () => {
    const handler = registerWith(deps({ limits: { ...deps().limits, perIp: { limit: 2, windowSeconds: 3600 } } }));
    expect((await doRegister(uniqueEmail("ip6"), handler, "2001:db8:7:42::1")).status).toBe(200);
    expect((await doRegister(uniqueEmail("ip6"), handler, "2001:db8:7:42:ffff:1:2:3")).status).toBe(200);
    expectError(await doRegister(uniqueEmail("ip6"), handler, "2001:0db8:0007:0042::abcd"), 429, "RATE_LIMIT_ERROR", /from your network/);
    expect((await doRegister(uniqueEmail("ip6"), handler, "2001:db8:7:43::1")).status).toBe(200); // the next /64 is another client

    expect((await doRegister(uniqueEmail("ip4"), handler, "198.51.100.77")).status).toBe(200);
    expect((await doRegister(uniqueEmail("ip4"), handler, "::ffff:198.51.100.77")).status).toBe(200);
    expectError(await doRegister(uniqueEmail("ip4"), handler, "198.51.100.77"), 429, "RATE_LIMIT_ERROR", /from your network/);
  });

  it("counts +tag variants of an address as one mailbox for the limits, while each keeps its own code", async () => {
    const base = uniqueEmail("mailbox");
    const tagged = (tag: string) => base.replace("@", `+${tag}@`);
    for (const email of [tagged("a"), tagged("b"), base]) expect((await doRegister(email)).status).toBe(200);
    expectError(await doRegister(tagged("c")), 429, "RATE_LIMIT_ERROR", /at most 3 per 15 minutes/);
    expectError(await doRegister(base.toUpperCase().replace("EXAMPLE.COM", "example.com")), 429, "RATE_LIMIT_ERROR");
    // The codes stay per exact address: +a's code works for +a only, and was not replaced by +b's.
    const codeA = await codeFor(tagged("a"));
    const codeB = await codeFor(tagged("b"));
    if (codeA !== codeB) expectError(await doVerify(tagged("b"), codeA), 422, "INVALID_CODE");
    expect((await doVerify(tagged("a"), codeA)).json.email).toBe(tagged("a"));
    expect((await doVerify(tagged("b"), codeB)).json.email).toBe(tagged("b"));
  });

  it("allows 10 codes per address in 24 hours even when spread past the 15-minute rule, with the day's Retry-After", async () => {
    const t0 = Date.now();
    let now = t0;
    const handler = registerWith(deps({ now: () => now }));
    const email = uniqueEmail("daily");
    const at = async (minutes: number, expected: number) => {
      now = t0 + minutes * 60_000;
      return expect((await doRegister(email, handler)).status, `at ${minutes} minutes`).toBe(expected);
    };
    for (const minutes of [0, 0, 0, 15, 15, 15, 30, 45, 45, 45]) await at(minutes, 200);
    // Both address rules are full now; the 15-minute one frees a slot in 15 minutes, the day only
    // when the first code turns 24 hours old: Retry-After is the day's wait.
    const limited = await doRegister(email, handler);
    expectError(limited, 429, "RATE_LIMIT_ERROR", /at most 10 per 24 hours/);
    expect(Number(limited.headers["retry-after"])).toBe(24 * 3600 - 45 * 60);
    await at(60 + 1, 429); // the 15-minute rule is free again, the day is not
    now = t0 + 24 * 3600_000 - 1000; // a second before the first codes turn a day old
    const almost = await doRegister(email, handler);
    expectError(almost, 429, "RATE_LIMIT_ERROR", /at most 10 per 24 hours/);
    expect(almost.headers["retry-after"]).toBe("1");
    for (let i = 0; i < 3; i++) await at(24 * 60, 200); // the three codes of minute 0 left the day
    await at(24 * 60, 429);
    expect((await mailsTo(standIns.sesEndpoint, email)).length).toBe(13);
  });

  it("answers the daily limit identically for an address that holds a key and one that does not", async () => {
    let now = Date.now();
    const handler = registerWith(deps({ now: () => now }));
    const known = { email: uniqueEmail("dailyknown") };
    const unknown = uniqueEmail("dailyunknown");
    expect((await doRegister(known.email, handler)).status).toBe(200);
    expect((await doRegister(unknown, handler)).status).toBe(200);
    expect((await doVerify(known.email, await codeFor(known.email))).status).toBe(200); // the known address now holds a key
    for (let i = 0; i < 9; i++) {
      now += 15 * 60_000;
      expect((await doRegister(known.email, handler)).status).toBe(200);
      expect((await doRegister(unknown, handler)).status).toBe(200);
    }
    now += 15 * 60_000;
    const [a, b] = [await doRegister(known.email, handler), await doRegister(unknown, handler)];
    expectError(a, 429, "RATE_LIMIT_ERROR", /at most 10 per 24 hours/);
    const { requestId: _a, ...bodyA } = a.json;
    const { requestId: _b, ...bodyB } = b.json;
    expect(bodyA).toEqual(bodyB);
    expect(a.headers["retry-after"]).toBe(b.headers["retry-after"]);
  });
});

describe("failures of the outside world", () => {
  it("answers 502 EMAIL_FAILED when SES refuses, leaves no pending code and does not count the attempt", async () => {
    const ses = await startRefusingSes();
    try {
      const mailer = createSesMailer({ sender: "noreply@signet.local", region: "us-east-1", endpoint: ses.endpoint });
      const handler = registerWith(deps({ mailer }));
      const email = uniqueEmail("refused");
      for (let i = 0; i < 4; i++) {
        const result = await doRegister(email, handler);
        expectError(result, 502, "EMAIL_FAILED", /refused to send the code/);
        expect(result.json.message).not.toMatch(/identities|US-EAST-1|MessageRejected/);
      }
      expect(ses.requests()).toBeGreaterThanOrEqual(4);
      expectError(await doVerify(email, "123456"), 422, "INVALID_CODE", /does not work for this address/);
      for (let i = 0; i < 3; i++) expect((await doRegister(email)).status).toBe(200); // no attempt counted
    } finally {
      await ses.close();
    }
  });

  it("does not count a refused code against the daily rule either", async () => {
    const ses = await startRefusingSes();
    try {
      // The 15-minute rule is opened wide so that only the daily rule (2 a day here) can refuse.
      const limits = { ...deps().limits, perAddress: { limit: 100, windowSeconds: 900 }, perAddressDaily: { limit: 2, windowSeconds: 86_400 } };
      const mailer = createSesMailer({ sender: "noreply@signet.local", region: "us-east-1", endpoint: ses.endpoint });
      const refusing = registerWith(deps({ mailer, limits }));
      const working = registerWith(deps({ limits }));
      const email = uniqueEmail("dailyrefused");
      for (let i = 0; i < 3; i++) expectError(await doRegister(email, refusing), 502, "EMAIL_FAILED");
      for (let i = 0; i < 2; i++) expect((await doRegister(email, working)).status).toBe(200);
      expectError(await doRegister(email, working), 429, "RATE_LIMIT_ERROR", /at most 2 per 24 hours/);
    } finally {
      await ses.close();
    }
  });

  it("keeps the pending code usable when a newer code cannot be sent", async () => {
    const email = uniqueEmail("keepcode");
    expect((await doRegister(email)).status).toBe(200);
    const code = await codeFor(email);
    const refusing = { send: async () => Promise.reject(new SignetError("EMAIL_FAILED", "The e-mail service refused to send the code.")) };
    expectError(await doRegister(email, registerWith(deps({ mailer: refusing }))), 502, "EMAIL_FAILED");
    const verified = await doVerify(email, code);
    expect(verified.status, JSON.stringify(verified.json)).toBe(200);
  });

  it("keeps the pending code's wrong tries when it puts it back", async () => {
    const email = uniqueEmail("keeptries");
    await doRegister(email);
    const code = await codeFor(email);
    const tries = async () => (await createDynamoKeyStore(storeOptions()).getCode(email))?.wrongTries;
    expectError(await doVerify(email, wrongCode(code)), 422, "INVALID_CODE");
    expect(await tries()).toBe(1);
    const refusing = { send: async () => Promise.reject(new SignetError("SERVICE_UNAVAILABLE", "down")) };
    expectError(await doRegister(email, registerWith(deps({ mailer: refusing }))), 503, "SERVICE_UNAVAILABLE");
    expectError(await doVerify(email, wrongCode(code)), 422, "INVALID_CODE");
    expect(await tries()).toBe(2);
  });

  it("leaves a concurrent register's newer code alone when its own send fails", async () => {
    const email = uniqueEmail("racecode");
    await doRegister(email);
    await codeFor(email); // the first code has been sent
    // While the failing send is in flight, another register stores and sends a newer code.
    const racing = {
      send: async () => {
        expect((await doRegister(email)).status).toBe(200);
        throw new SignetError("SERVICE_UNAVAILABLE", "down");
      },
    };
    expectError(await doRegister(email, registerWith(deps({ mailer: racing }))), 503, "SERVICE_UNAVAILABLE");
    const newest = await codeFor(email);
    expect((await doVerify(email, newest)).status).toBe(200);
  });

  it("gives up on a hanging DynamoDB after 2 attempts with a 503", async () => {
    const silent = await startSilentServer();
    try {
      const store = createDynamoKeyStore({ tableName: "signet-keys-handlers", region: "us-east-1", endpoint: silent.endpoint });
      const result = await doVerify(uniqueEmail("dbhang"), "123456", verifyWith(deps({ store })));
      expectError(result, 503, "SERVICE_UNAVAILABLE", /key store cannot be reached/);
      expect(silent.requests()).toBe(DYNAMODB_CLIENT_LIMITS.maxAttempts);
      expect(silent.requests()).toBe(2);
    } finally {
      await silent.close();
    }
  });

  it("gives up on a hanging SES after 2 attempts with a 503, and puts the pending code back", async () => {
    const silent = await startSilentServer();
    try {
      const email = uniqueEmail("seshang");
      await doRegister(email);
      const code = await codeFor(email);
      const mailer = createSesMailer({ sender: "noreply@signet.local", region: "us-east-1", endpoint: silent.endpoint });
      const result = await doRegister(email, registerWith(deps({ mailer })));
      expectError(result, 503, "SERVICE_UNAVAILABLE", /e-mail service cannot be reached/);
      expect(silent.requests()).toBe(2);
      expect((await doVerify(email, code)).status).toBe(200);
    } finally {
      await silent.close();
    }
  });

  it("answers 503 when SES is unreachable and leaves no usable code", async () => {
    const mailer = createSesMailer({ sender: "noreply@signet.local", region: "us-east-1", endpoint: `http://127.0.0.1:${await closedPort()}` });
    const handler = registerWith(deps({ mailer }));
    const email = uniqueEmail("sesdown");
    const result = await doRegister(email, handler);
    expectError(result, 503, "SERVICE_UNAVAILABLE", /e-mail service cannot be reached/);
    expect(result.json.message).not.toMatch(/ECONNREFUSED|at .*\.ts/);
    expectError(await doVerify(email, "123456"), 422, "INVALID_CODE", /does not work for this address/);
  });

  it("answers 503 (never 500) when DynamoDB is unreachable, and the authorizer throws so the gateway answers 503", async () => {
    const port = await closedPort();
    const store = createDynamoKeyStore({ tableName: "signet-keys-handlers", region: "us-east-1", endpoint: `http://127.0.0.1:${port}` });
    const down = deps({ store });
    const email = uniqueEmail("dbdown");
    expectError(await doRegister(email, registerWith(down)), 503, "SERVICE_UNAVAILABLE", /key store cannot be reached/);
    expectError(await doVerify(email, "123456", verifyWith(down)), 503, "SERVICE_UNAVAILABLE", /key store/);
    const authorize = createAuthorizer({ store, now: Date.now });
    await expect(authorize({ type: "TOKEN", authorizationToken: `Bearer ${generateApiKey()}`, methodArn })).rejects.toMatchObject({
      code: "SERVICE_UNAVAILABLE",
    });
    expect(await mailsTo(standIns.sesEndpoint, email)).toHaveLength(0);
  });

  it("still issues the key when only the notice e-mail fails, and reports that without the key", async () => {
    const email = uniqueEmail("nonotice");
    await doRegister(email);
    const code = await codeFor(email);
    const warnings: Array<[string, Record<string, unknown>]> = [];
    const failing = { send: async () => Promise.reject(new Error("SES down")) };
    const handler = verifyWith(deps({ mailer: failing, warn: (m, d) => void warnings.push([m, d]) }));
    const result = await doVerify(email, code, handler);
    expect(result.status).toBe(200);
    expect(warnings).toEqual([["key notice e-mail failed", { keyId: expect.stringMatching(/^key_/), error: "SES down" }]]);
    expect(JSON.stringify(warnings)).not.toContain(result.json.key as string);
  });
});

describe("the authorizer", () => {
  it("rejects missing, malformed and tampered keys with a message saying which, without any database call", async () => {
    const { key } = await issueKey("tamper");
    const spy = counting(createDynamoKeyStore(storeOptions()));
    const authorize = createAuthorizer({ store: spy.store, now: Date.now });
    const tampered = key.slice(0, 20) + (key[20] === "A" ? "B" : "A") + key.slice(21);
    // One row: Authorization header, message pattern.
    const rows: Array<[string, RegExp]> = [
      ["", /Missing API key/],
      [key, /Malformed Authorization header/],
      [`Basic ${key}`, /Malformed Authorization header/],
      [`Bearer ${key.slice(0, -1)}`, /Malformed API key/],
      [`Bearer sk_live_${key.slice(4)}`, /Malformed API key/],
      [`Bearer ${tampered}`, /checksum does not match/],
    ];
    for (const [header, message] of rows) {
      const decision = await authorize({ type: "TOKEN", authorizationToken: header, methodArn });
      expect(decision.policyDocument.Statement[0]!.Effect, header).toBe("Deny");
      expect(decision.context!.message).toMatch(message);
      // The gateway pastes the message raw into a JSON string: it must need no escaping.
      expect(decision.context!.message).not.toMatch(/["\\\u0000-\u001f]/);
      expect(JSON.stringify(decision)).not.toContain(key.slice(4, 36));
    }
    expect(spy.total()).toBe(0);
  });

  it("rejects an unknown key after one lookup, in words that do not say whether any address exists", async () => {
    const spy = counting(createDynamoKeyStore(storeOptions()));
    const authorize = createAuthorizer({ store: spy.store, now: Date.now });
    const decision = await authorize({ type: "TOKEN", authorizationToken: `Bearer ${generateApiKey()}`, methodArn });
    expect(decision.policyDocument.Statement[0]!.Effect).toBe("Deny");
    expect(decision.context!.message).toMatch(/Unknown API key/);
    expect(decision.context!.message).not.toMatch(/@|e-mail|address/);
    expect(spy.calls).toEqual({ getKey: 1 });
  });

  it("updates lastUsedAt at most once a minute", async () => {
    const { email, key } = await issueKey("touch");
    let now = Date.now() + 10_000;
    const spy = counting(createDynamoKeyStore(storeOptions()));
    const authorize = createAuthorizer({ store: spy.store, now: () => now });
    const lastUsed = async () => (await scanItems("email = :e AND sk = :k", { ":e": email, ":k": "KEY" }))[0]!.lastUsedAt!.S;
    const issuedAt = await lastUsed();
    const use = () => authorize({ type: "TOKEN", authorizationToken: `Bearer ${key}`, methodArn });

    await use();
    expect(await lastUsed()).toBe(issuedAt); // 10 s after issue: no write
    now += 60_000;
    await use();
    expect(await lastUsed()).toBe(new Date(now).toISOString());
    now += 30_000;
    await use();
    await use();
    expect(await lastUsed()).toBe(new Date(now - 30_000).toISOString());
    now += 31_000;
    await use();
    expect(await lastUsed()).toBe(new Date(now).toISOString());
    expect(spy.calls).toEqual({ getKey: 5, touchKey: 2 });
  });
});

describe("logging", () => {
  it("never writes a code or a key to the log", () => {
    const text = output.text();
    expect(text).toMatch(/"message":"request"/); // the capture did see the logger
    expect(secrets.length).toBeGreaterThan(20);
    // Codes are matched as whole numbers: a 6-digit run inside a longer number is not a code.
    for (const secret of secrets) expect(text).not.toMatch(new RegExp(`(?<![0-9])${secret}(?![0-9])`));
  });
});
