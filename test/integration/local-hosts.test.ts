// The local server and its stand-ins against a forged Host
// (DNS rebinding) and foreign origins, and links in mails that never follow the Host header.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { latestCode, mailsTo, uniqueEmail } from "#test/helpers/keys-harness.ts";

let api: LocalApi;
beforeAll(async () => {
  api = await startLocalApi("local-hosts", { SIGNET_TABLE: "signet-local-hosts", SIGNET_REGISTER_IP_LIMIT: "1000", SIGNET_LOG_LEVEL: "ERROR" });
});
afterAll(async () => {
  await api?.close();
});

/** call sends one request to a loopback listener with the Host (and other headers) given verbatim. */
function call(
  base: string,
  path: string,
  headers: Record<string, string>,
  method = "GET",
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: url.port, path: `${url.pathname}${url.search}`, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}
const port = () => new URL(api.url).port;

describe("the local API answers only to the names it is bound under", () => {
  it.each(["localhost", "127.0.0.1", "[::1]", "LOCALHOST"])("answers Host %s", async (name) => {
    expect((await call(api.url, "/v1/health", { host: `${name}:${port()}` })).status).toBe(200);
  });

  it.each(["evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "0.0.0.0"])("refuses Host %s with 403 in the error layout", async (name) => {
    const answer = await call(api.url, "/v1/health", { host: `${name}:${port()}` });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text)).toMatchObject({ code: "REQUEST_REJECTED", message: expect.stringContaining("Host") });
  });

  it("mints no key for a request with a forged Host, and links in mails use the server's address whatever loopback name was used", async () => {
    const email = uniqueEmail("host");
    expect((await call(api.url, `/v1/auth/register?email=${encodeURIComponent(email)}`, { host: `127.0.0.1:${port()}` })).status).toBe(200);
    const code = await latestCode(api.standIns.sesEndpoint, email);
    const verify = (host: string) => call(api.url, `/v1/auth/verify?email=${encodeURIComponent(email)}&code=${code}`, { host });
    expect((await verify(`evil.example:${port()}`)).status).toBe(403);
    expect((await verify(`127.0.0.1:${port()}`)).status).toBe(200);
    const notice = (await mailsTo(api.standIns.sesEndpoint, email)).find((mail) => mail.subject.includes("API key was created"))!;
    expect(notice.body.text).toContain(`${api.url}/v1/keys/revoke?token=rvk_`);
    expect(notice.body.text).not.toContain("127.0.0.1");
  });
});

describe("the stand-ins answer only on loopback names and to their own origin", () => {
  const standIns = () => [
    ["mail (local SES)", api.standIns.sesEndpoint, "/store"],
    ["S3", api.standIns.s3Endpoint, "/signet-uploads/none"],
    ["DynamoDB", api.standIns.dynamodbEndpoint, "/"],
  ];

  it("serves the mail store to the SDK's and a browser's own requests", async () => {
    const ses = new URL(api.standIns.sesEndpoint);
    expect((await call(ses.href, "/store", { host: ses.host })).status).toBe(200);
    expect((await call(ses.href, "/store", { host: `localhost:${ses.port}`, origin: `http://localhost:${ses.port}` })).status).toBe(200);
  });

  it("refuses a DNS-rebinding Host and a foreign Origin on every stand-in", async () => {
    for (const [name, endpoint, path] of standIns()) {
      const url = new URL(endpoint!);
      const rebound = await call(url.href, path!, { host: `evil.example:${url.port}` });
      expect(rebound.status, `${name} with a foreign Host`).toBe(403);
      const crossOrigin = await call(url.href, path!, { host: url.host, origin: "http://evil.example" });
      expect(crossOrigin.status, `${name} with a foreign Origin`).toBe(403);
      expect(crossOrigin.headers["access-control-allow-origin"], name).toBeUndefined();
    }
    // The mail store's content never went out.
    const rebound = await call(api.standIns.sesEndpoint, "/store", { host: "evil.example" });
    expect(rebound.text).not.toContain("emails");
  });
});
