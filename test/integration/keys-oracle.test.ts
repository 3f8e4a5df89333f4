// Through the real local server: HEAD never changes state, and
// the verify answer is no oracle while a stranger's wrong tries cannot keep an address from a key.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { latestCode, mailsTo, uniqueEmail } from "#test/helpers/keys-harness.ts";

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi("keys-oracle", { SIGNET_TABLE: "signet-keys-oracle", SIGNET_REGISTER_IP_LIMIT: "1000", SIGNET_LOG_LEVEL: "ERROR" });
});
afterAll(async () => {
  await api?.close();
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: Record<string, any> | undefined;
}

/**
 * call sends one request from a chosen loopback address (127.0.0.1 is the victim's network,
 * 127.0.0.2 and up are strangers: all of 127/8 reaches the server bound to 127.0.0.1 on Linux).
 */
function call(method: string, path: string, from = "127.0.0.1", headers: Record<string, string> = {}): Promise<Answer> {
  const url = new URL(path, api.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: url.port, path: `${url.pathname}${url.search}`, method, localAddress: from, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: res.statusCode ?? 0, headers: res.headers, json: text ? (JSON.parse(text) as Record<string, any>) : undefined });
      });
    });
    req.on("error", reject);
    req.end();
  });
}
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();
const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

async function registered(tag: string, from = "127.0.0.1"): Promise<{ email: string; code: string }> {
  const email = uniqueEmail(tag);
  expect((await call("GET", `/v1/auth/register?${q({ email })}`, from)).status).toBe(200);
  return { email, code: await latestCode(api.standIns.sesEndpoint, email) };
}

describe("HEAD never changes state", () => {
  it("answers HEAD on verify with 405 and Allow, and the code still mints its key on GET afterwards", async () => {
    const { email, code } = await registered("head-verify");
    const head = await call("HEAD", `/v1/auth/verify?${q({ email, code })}`);
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe("GET, OPTIONS");
    expect((await mailsTo(api.standIns.sesEndpoint, email)).filter((mail) => mail.subject.includes("API key was created"))).toHaveLength(0);
    const get = await call("GET", `/v1/auth/verify?${q({ email, code })}`);
    expect(get.status, JSON.stringify(get.json)).toBe(200);
    expect(get.json!.key).toMatch(/^sgn_/);
  });

  it("answers HEAD on register with 405 and sends no mail", async () => {
    const email = uniqueEmail("head-register");
    const head = await call("HEAD", `/v1/auth/register?${q({ email })}`);
    expect(head.status).toBe(405);
    expect(head.headers.allow).toBe("GET, OPTIONS");
    expect(await mailsTo(api.standIns.sesEndpoint, email)).toHaveLength(0);
  });

  it("answers HEAD on the confirmed revocation link with 405, and the key keeps working", async () => {
    const { email, code } = await registered("head-revoke");
    const key = (await call("GET", `/v1/auth/verify?${q({ email, code })}`)).json!.key as string;
    const notice = (await mailsTo(api.standIns.sesEndpoint, email)).find((mail) => mail.subject.includes("API key was created"))!;
    const token = /token=(rvk_[0-9A-Za-z]+)/.exec(notice.body.text ?? "")![1]!;
    const head = await call("HEAD", `/v1/keys/revoke?${q({ token, confirm: "yes" })}`);
    expect(head.status).toBe(405);
    expect((await call("GET", "/v1/keys", "127.0.0.1", { authorization: `Bearer ${key}` })).status).toBe(200);
    // The link itself still works once, on GET.
    expect((await call("GET", `/v1/keys/revoke?${q({ token, confirm: "yes" })}`)).status).toBe(200);
    expect((await call("GET", "/v1/keys", "127.0.0.1", { authorization: `Bearer ${key}` })).status).toBe(401);
  });

  it("still answers HEAD on GET routes that change nothing, as GET without the body", async () => {
    const head = await call("HEAD", "/v1/health");
    expect(head.status).toBe(200);
    expect(head.json).toBeUndefined();
    // And a 405 elsewhere still offers HEAD where it is safe.
    expect((await call("DELETE", "/v1/health")).headers.allow).toBe("GET, HEAD, OPTIONS");
  });
});

describe("the verify answer is no oracle", () => {
  it("answers an address with no code pending exactly as a wrong code for one with a code", async () => {
    const pending = await registered("oracle-pending");
    const none = uniqueEmail("oracle-none");
    const wrong = await call("GET", `/v1/auth/verify?${q({ email: pending.email, code: wrongCode(pending.code) })}`, "127.0.0.3");
    const missing = await call("GET", `/v1/auth/verify?${q({ email: none, code: wrongCode(pending.code) })}`, "127.0.0.3");
    expect(wrong.status).toBe(422);
    expect(missing.status).toBe(422);
    const { requestId: _a, ...wrongBody } = wrong.json!;
    const { requestId: _b, ...missingBody } = missing.json!;
    expect(wrongBody).toEqual(missingBody);
    expect(wrongBody.code).toBe("INVALID_CODE");
    expect(wrong.headers["retry-after"]).toBe(missing.headers["retry-after"]);
  });

  it("keeps the victim's code alive through a stranger's five wrong tries (and more): it still mints the key from the victim's network", async () => {
    const { email, code } = await registered("oracle-victim", "127.0.0.1");
    // Two strangers' networks, 3 wrong tries each: 5 close the code to every network but the victim's.
    for (const from of ["127.0.0.4", "127.0.0.4", "127.0.0.4", "127.0.0.5", "127.0.0.5", "127.0.0.5"]) {
      const answer = await call("GET", `/v1/auth/verify?${q({ email, code: wrongCode(code) })}`, from);
      expect(answer.status, from).toBe(422);
      expect(answer.json!.code).toBe("INVALID_CODE");
    }
    // Even the right code from a stranger's network no longer works (and says nothing new) ...
    const stranger = await call("GET", `/v1/auth/verify?${q({ email, code })}`, "127.0.0.6");
    expect(stranger.status).toBe(422);
    expect(stranger.json!.code).toBe("INVALID_CODE");
    // ... while the victim, on the network that asked for the code, gets the key.
    const victim = await call("GET", `/v1/auth/verify?${q({ email, code })}`, "127.0.0.1");
    expect(victim.status, JSON.stringify(victim.json)).toBe(200);
    expect(victim.json!.key).toMatch(/^sgn_/);
  });

  it("counts codes that did not work per source network too: the 11th in 15 minutes is 429 with Retry-After, for any address", async () => {
    const from = "127.0.0.7";
    for (let i = 0; i < 10; i++) {
      expect((await call("GET", `/v1/auth/verify?${q({ email: uniqueEmail("spray"), code: "123456" })}`, from)).status).toBe(422);
    }
    const throttled = await call("GET", `/v1/auth/verify?${q({ email: uniqueEmail("spray"), code: "123456" })}`, from);
    expect(throttled.status).toBe(429);
    expect(throttled.json!.code).toBe("RATE_LIMIT_ERROR");
    expect(Number(throttled.headers["retry-after"])).toBeGreaterThan(0);
    // Another network is not affected.
    expect((await call("GET", `/v1/auth/verify?${q({ email: uniqueEmail("spray"), code: "123456" })}`, "127.0.0.8")).status).toBe(422);
  });
});
