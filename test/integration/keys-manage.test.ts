import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureOutput, latestCode, mailsTo, uniqueEmail } from "#test/helpers/keys-harness.ts";
import { type LocalApi, startLocalApi } from "#test/helpers/local-api.ts";
import { cachedLocalKey } from "../../examples/local-key.ts";

const output = captureOutput();
// Every key and revocation token the tests see; none may ever appear in the log output.
const secrets: string[] = [];

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi(
    "keys-manage",
    { SIGNET_TABLE: "signet-keys-manage", SIGNET_REGISTER_IP_LIMIT: "1000", SIGNET_LOG_LEVEL: "DEBUG" },
    { parts: "keys" },
  );
});
afterAll(async () => {
  output.stop();
  await api?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: Record<string, unknown>;
}
async function request(method: string, path: string, key?: string): Promise<Answer> {
  const response = await fetch(`${api.url}${path}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {} });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: JSON.parse(text) as Record<string, unknown> };
}
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

/** mint registers and verifies through the server, as a person would; the key. */
async function mint(email: string): Promise<string> {
  expect((await request("GET", `/v1/auth/register?${q({ email })}`)).status).toBe(200);
  const code = await latestCode(api.standIns.sesEndpoint, email);
  const verified = await request("GET", `/v1/auth/verify?${q({ email, code })}`);
  expect(verified.status, verified.text).toBe(200);
  secrets.push(verified.json.key as string);
  return verified.json.key as string;
}
/** opens tells whether a key passes the authorizer (sign then judges the missing body: 415). */
async function status(key: string): Promise<Answer> {
  return request("POST", "/v1/sign", key);
}
type Listed = { id: string; last4: string; createdAt: string; lastUsedAt: string; current: boolean };
const listed = (answer: Answer) => answer.json.keys as Listed[];

/** revokeLinkOf reads the revocation link of the newest key notice sent to an address. */
async function revokeLinkOf(email: string): Promise<string> {
  const notices = (await mailsTo(api.standIns.sesEndpoint, email)).filter((mail) => mail.subject === "A new Signet API key was created");
  const match = /(http:\/\/\S+\/v1\/keys\/revoke\?token=rvk_[0-9A-Za-z]{32})/.exec(notices.at(-1)?.body.text ?? "");
  if (!match) throw new Error(`no revocation link in the notice to ${email}`);
  secrets.push(match[1]!.slice(match[1]!.indexOf("rvk_")));
  return match[1]!;
}

describe("listing and revoking keys through the local server", () => {
  const owner = uniqueEmail("owner");
  let first: string;
  let second: string;

  it("lists both keys after two verifies: public id, last 4, dates, the caller marked; never a key or a hash", async () => {
    first = await mint(owner);
    second = await mint(owner);
    const answer = await request("GET", "/v1/keys", first);
    expect(answer.status, answer.text).toBe(200);
    const keys = listed(answer);
    expect(keys).toHaveLength(2);
    expect(keys.map((key) => key.last4)).toEqual([first.slice(-4), second.slice(-4)]);
    expect(keys.map((key) => key.current)).toEqual([true, false]);
    for (const key of keys) {
      expect(key.id).toMatch(/^key_[0-9A-Za-z]{16}$/);
      expect(Object.keys(key).sort()).toEqual(["createdAt", "current", "id", "last4", "lastUsedAt"]);
    }
    for (const secret of [first, second]) expect(answer.text).not.toContain(secret.slice(4, 36));
    expect(answer.text).not.toMatch(/[0-9a-f]{64}/); // no SHA-256 hash
    expect(answer.headers.get("cache-control")).toBe("no-store");
    // The other key sees the same list with itself marked.
    expect(listed(await request("GET", "/v1/keys", second)).map((key) => key.current)).toEqual([false, true]);
  });

  it("a third address sees only its own key and gets 404 (never 403) for the others' ids", async () => {
    const stranger = await mint(uniqueEmail("stranger"));
    const own = listed(await request("GET", "/v1/keys", stranger));
    expect(own).toHaveLength(1);
    expect(own[0]!.last4).toBe(stranger.slice(-4));
    const theirs = listed(await request("GET", "/v1/keys", first));
    for (const key of theirs) {
      const refused = await request("DELETE", `/v1/keys/${key.id}`, stranger);
      expect(refused.status, refused.text).toBe(404);
      expect(refused.json.code).toBe("NOT_FOUND");
    }
    // An id that exists nowhere answers exactly the same.
    const unknown = await request("DELETE", "/v1/keys/key_0000000000000000", stranger);
    expect(unknown.status).toBe(404);
    const other = await request("DELETE", `/v1/keys/${theirs[0]!.id}`, stranger);
    expect(String(unknown.json.message).replace("key_0000000000000000", "ID")).toBe(String(other.json.message).replace(theirs[0]!.id, "ID"));
    expect(listed(await request("GET", "/v1/keys", first))).toHaveLength(2);
    expect((await status(first)).status).toBe(415);
  });

  it("revokes one key with the other: the revoked key gets 401 'revoked' everywhere, the other keeps working", async () => {
    const [, secondId] = listed(await request("GET", "/v1/keys", first)).map((key) => key.id);
    const revoked = await request("DELETE", `/v1/keys/${secondId}`, first);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.json).toMatchObject({ id: secondId, last4: second.slice(-4), revokedAt: expect.any(String) });

    for (const [method, path] of [
      ["POST", "/v1/sign"],
      ["GET", "/v1/keys"],
      ["DELETE", `/v1/keys/${secondId}`],
    ] as const) {
      const refused = await request(method, path, second);
      expect(refused.status, `${method} ${path}`).toBe(401);
      expect(refused.json.code).toBe("AUTHENTICATION_ERROR");
      expect(refused.json.message).toMatch(/revoked/i);
    }
    expect(listed(await request("GET", "/v1/keys", first)).map((key) => key.last4)).toEqual([first.slice(-4)]);
    // Revoking it again: the same 404 as any id that is not a live key of the address.
    expect((await request("DELETE", `/v1/keys/${secondId}`, first)).status).toBe(404);
    expect((await status(first)).status).toBe(415);
  });

  it("revokes the caller's own key", async () => {
    const email = uniqueEmail("self");
    const key = await mint(email);
    const [own] = listed(await request("GET", "/v1/keys", key));
    const revoked = await request("DELETE", `/v1/keys/${own!.id}`, key);
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.json.message).toMatch(/key of this request/);
    expect((await status(key)).status).toBe(401);
  });

  it("refuses a malformed id with 400 and DELETE on the link path with 405", async () => {
    const bad = await request("DELETE", "/v1/keys/not-an-id", first);
    expect(bad.status, bad.text).toBe(400);
    expect(bad.json.details).toEqual([expect.objectContaining({ field: "path.id" })]);
    const wrongMethod = await request("DELETE", "/v1/keys/revoke", first);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toContain("GET");
  });
});

describe("the revocation link of the notice e-mail", () => {
  it("names the link and the endpoint in the notice, shows the key without revoking, then revokes once", async () => {
    const email = uniqueEmail("link");
    const key = await mint(email);
    const [own] = listed(await request("GET", "/v1/keys", key));
    const notice = (await mailsTo(api.standIns.sesEndpoint, email)).at(-1)!;
    expect(notice.body.text).toContain(`DELETE ${api.url}/v1/keys/${own!.id}`);
    expect(notice.body.text).not.toContain(key);
    const link = await revokeLinkOf(email);
    expect(link.startsWith(`${api.url}/v1/keys/revoke?token=`)).toBe(true);

    // Opened as sent (a person, or a mail scanner): shows the key, revokes nothing.
    const preview = await fetch(link);
    expect(preview.status).toBe(200);
    expect(await preview.json()).toMatchObject({ key: { id: own!.id, last4: key.slice(-4) } });
    expect((await status(key)).status).toBe(415);

    const confirmed = await fetch(`${link}&confirm=yes`);
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toMatchObject({ id: own!.id, revokedAt: expect.any(String) });
    const refused = await status(key);
    expect(refused.status).toBe(401);
    expect(refused.json.message).toMatch(/revoked/i);

    // Once only.
    for (const again of [link, `${link}&confirm=yes`]) {
      const used = await fetch(again);
      expect(used.status).toBe(404);
      expect(((await used.json()) as { code: string }).code).toBe("NOT_FOUND");
    }
  });

  it("dies when the key is revoked another way, and refuses a malformed token with 400", async () => {
    const email = uniqueEmail("linkdead");
    const key = await mint(email);
    const link = await revokeLinkOf(email);
    const [own] = listed(await request("GET", "/v1/keys", key));
    expect((await request("DELETE", `/v1/keys/${own!.id}`, key)).status).toBe(200);
    expect((await fetch(link)).status).toBe(404);
    expect((await request("GET", "/v1/keys/revoke?token=rvk_short")).status).toBe(400);
    expect((await request("GET", `/v1/keys/revoke?token=rvk_${"A".repeat(32)}`)).status).toBe(404);
  });
});

describe("keys for local work", () => {
  it("npm run key prints a new working key, read from the local mail store", async () => {
    const { execFile } = await import("node:child_process");
    const email = uniqueEmail("script");
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile(
        "npx",
        ["tsx", "scripts/key.ts", email],
        { env: { ...process.env, SIGNET_URL: api.url, SIGNET_SES_URL: api.standIns.sesEndpoint }, timeout: 60_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve({ stdout: out, stderr: err })),
      ),
    );
    const key = stdout.trim();
    expect(key, stderr).toMatch(/^sgn_[0-9A-Za-z]{38}$/);
    expect(stderr).toContain(email);
    expect((await request("GET", "/v1/keys", key)).status).toBe(200);
  });

  it("the examples keep a local key and reuse it while the server accepts it, minting anew once it is revoked", async () => {
    const { mkdtempSync, readFileSync, rmSync, statSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const dir = mkdtempSync(join(tmpdir(), "signet-example-key-"));
    const file = join(dir, "nested", "example-key");
    const email = uniqueEmail("cached");
    const options = { baseUrl: api.url, sesUrl: api.standIns.sesEndpoint, email, file };
    const codes = async () => (await mailsTo(api.standIns.sesEndpoint, email)).filter((mail) => mail.subject === "Your Signet verification code").length;

    const first = await cachedLocalKey(options);
    expect(first.reused).toBe(false);
    expect(readFileSync(file, "utf8").trim()).toBe(first.key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    for (let run = 0; run < 4; run++) expect(await cachedLocalKey(options)).toEqual({ key: first.key, reused: true });
    expect(await codes()).toBe(1); // five runs, one code: the register limit (3 per 15 minutes) is never near

    const [own] = listed(await request("GET", "/v1/keys", first.key));
    expect((await request("DELETE", `/v1/keys/${own!.id}`, first.key)).status).toBe(200);
    const next = await cachedLocalKey(options);
    expect(next.reused).toBe(false);
    expect(next.key).not.toBe(first.key);
    expect(readFileSync(file, "utf8").trim()).toBe(next.key);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("logging", () => {
  it("never writes a key or a revocation token to the log", () => {
    const text = output.text();
    expect(text).toMatch(/"message":"request"/); // the capture did see the logger
    expect(secrets.some((secret) => secret.startsWith("rvk_"))).toBe(true);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
