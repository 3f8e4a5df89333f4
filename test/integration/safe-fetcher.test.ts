import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSafeFetcher } from "#adapters/safe-fetcher.ts";
import type { ErrorCode } from "#domain/shared/errors.ts";
import { startFixtureServer, type FixtureServer } from "#test/helpers/http-fixture-server.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";
import { loadConfig } from "#config";

/** fetchSettings are the default fetch settings (the settings table's), which each fetcher here adjusts. */
const fetchSettings = loadConfig({}).fetch;

const PDF = Buffer.from("%PDF-1.7\n%%EOF\n");
let server: FixtureServer;

beforeAll(async () => {
  server = await startFixtureServer(
    (req, res) => {
      const url = new URL(req.url ?? "/", "http://x");
      switch (url.pathname) {
        case "/doc.pdf":
        case "/bad%ZZname.pdf":
          res.writeHead(200, { "content-type": "application/pdf" }).end(PDF);
          return;
        case "/bad-location":
          res.writeHead(302, { location: "http://[bad" }).end();
          return;
        case "/redirect": // a hop to wherever ?to= says
          res.writeHead(302, { location: url.searchParams.get("to")! }).end();
          return;
        case "/loop":
          res.writeHead(302, { location: "/loop" }).end();
          return;
        case "/big-declared":
          res.writeHead(200, { "content-length": String(5 * 1024 * 1024) });
          res.write(Buffer.alloc(1024));
          return; // never ends: the fetcher must stop on the header alone
        case "/big-streamed":
          res.writeHead(200, { "content-type": "application/pdf" });
          for (let i = 0; i < 40; i++) res.write(Buffer.alloc(64 * 1024));
          res.end();
          return;
        case "/hang":
          return; // accept, never answer
        case "/slow-body":
          res.writeHead(200, { "content-type": "application/pdf" });
          res.write(PDF);
          return; // headers and a bit, then silence
        case "/missing":
          res.writeHead(404).end();
          return;
        default:
          res.writeHead(500).end();
      }
      // Also on the other loopback addresses the refused URLs name: a request that got through would be counted there.
    },
    ["127.0.0.2", "::1"],
  );
});
afterAll(() => server.close());

// The loopback server is reachable only through this test-only allow-list.
const allowLoopback = () => createSafeFetcher({ ...fetchSettings, allowHttp: true, allowAddresses: ["127.0.0.1"], timeoutMs: 1500 });
const strict = () => createSafeFetcher({ ...fetchSettings, allowHttp: true, timeoutMs: 1500 });

/**
 * refusedUnheard expects a fetch to fail with the code, and the listeners (127.0.0.1, 127.0.0.2
 * and ::1, one port) to have received exactly `reached` meanwhile: a refusal after the request
 * went out would pass a check of the message alone.
 */
async function refusedUnheard(fetching: () => Promise<unknown>, code: ErrorCode, reached: string[] = []): Promise<Error> {
  server.requests.length = 0;
  const error = await expectSignetError(fetching(), code);
  expect(server.requests).toEqual(reached);
  return error;
}

describe("safe fetcher", () => {
  it("fetches from an allow-listed address", async () => {
    const result = await allowLoopback().fetch(server.url("/doc.pdf"), { maxBytes: 1024, what: "document" });
    expect(result.bytes.equals(PDF)).toBe(true);
    expect(result.contentType).toBe("application/pdf");
    expect(result.fileName).toBe("doc.pdf");
  });

  const blocked: Array<[string, (port: number) => string]> = [
    ["loopback literal", (port) => `http://127.0.0.1:${port}/doc.pdf`],
    ["localhost name (resolves to loopback)", (port) => `http://localhost:${port}/doc.pdf`],
    ["decimal IPv4 spelling", (port) => `http://2130706433:${port}/doc.pdf`],
    ["hex IPv4 spelling", (port) => `http://0x7f.1:${port}/doc.pdf`],
    ["octal-ish dotted spelling", (port) => `http://0177.0.0.1:${port}/doc.pdf`],
    ["IPv4-mapped IPv6", (port) => `http://[::ffff:127.0.0.1]:${port}/doc.pdf`],
    ["IPv6 loopback", (port) => `http://[::1]:${port}/doc.pdf`],
    // IPv4 inside IPv6: refused before any connection, naming the loopback address.
    ["IPv4-compatible IPv6 loopback", (port) => `http://[::127.0.0.1]:${port}/doc.pdf`],
    ["IPv4-compatible IPv6 loopback, hex", (port) => `http://[::7f00:1]:${port}/doc.pdf`],
    ["NAT64 loopback", (port) => `http://[64:ff9b::7f00:1]:${port}/doc.pdf`],
    ["6to4 loopback", (port) => `http://[2002:7f00:1::1]:${port}/doc.pdf`],
    ["Teredo client loopback", (port) => `http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:${port}/doc.pdf`],
    ["cloud metadata", () => "http://169.254.169.254/latest/meta-data/"],
    ["AWS IPv6 metadata", () => "http://[fd00:ec2::254]/latest/meta-data/"],
    ["private 10/8", () => "http://10.0.0.1/doc.pdf"],
    ["private 192.168/16", () => "http://192.168.1.1/doc.pdf"],
    ["unspecified", (port) => `http://0.0.0.0:${port}/doc.pdf`],
  ];
  it.each(blocked)("refuses %s at connect time: no request arrives", async (_name, url) => {
    const error = await refusedUnheard(() => strict().fetch(url(server.port), { maxBytes: 1024, what: "document" }), "FETCH_FAILED");
    expect(error.message).toMatch(/private|not public/);
    if (/127\.0\.0\.1|7f00/.test(url(server.port)) && url(server.port).includes("[")) expect(error.message).toMatch(/carrying 127\.0\.0\.1, which is loopback/);
  });

  // 127.0.0.1 is allowed, other loopback addresses (listened on too) are not: the hop must be refused, and only the first request arrives.
  it.each([
    ["127.0.0.2", (port: number) => `http://127.0.0.2:${port}/doc.pdf`],
    ["[::1]", (port: number) => `http://[::1]:${port}/doc.pdf`],
    ["0.0.0.0", (port: number) => `http://0.0.0.0:${port}/doc.pdf`],
  ])("re-checks every redirect hop: a hop to %s is refused, no request arrives there", async (_name, url) => {
    const first = `/redirect?to=${encodeURIComponent(url(server.port))}`;
    const error = await refusedUnheard(() => allowLoopback().fetch(server.url(first), { maxBytes: 1024, what: "document" }), "FETCH_FAILED", [
      `127.0.0.1 GET ${first}`,
    ]);
    expect(error.message).toMatch(/private|not public/);
  });

  it("refuses a redirect to the metadata service", async () => {
    const first = `/redirect?to=${encodeURIComponent("http://169.254.169.254/latest/meta-data/")}`;
    const error = await refusedUnheard(() => allowLoopback().fetch(server.url(first), { maxBytes: 1024, what: "document" }), "FETCH_FAILED", [
      `127.0.0.1 GET ${first}`,
    ]);
    expect(error.message).toMatch(/private|not public|link-local|metadata/);
  });

  // Both used to throw inside the response callback: an uncaught exception that killed the process.
  it("survives a file name that is not valid percent-encoding", async () => {
    const result = await allowLoopback().fetch(server.url("/bad%ZZname.pdf"), { maxBytes: 1024, what: "document" });
    expect(result.bytes.equals(PDF)).toBe(true);
    expect(result.fileName).toBe("bad%ZZname.pdf");
  });

  it("refuses a redirect to a malformed URL", async () => {
    const error = await expectSignetError(allowLoopback().fetch(server.url("/bad-location"), { maxBytes: 1024, what: "document" }), "FETCH_FAILED");
    expect(error.message).toMatch(/redirect led to a URL that is not allowed/);
  });

  it("follows at most 3 redirects", async () => {
    const error = await expectSignetError(allowLoopback().fetch(server.url("/loop"), { maxBytes: 1024, what: "document" }), "FETCH_FAILED");
    expect(error.message).toMatch(/more than 3 redirects/);
  });

  it("refuses http unless configured, and credentials always", async () => {
    const https = createSafeFetcher({ ...fetchSettings, allowAddresses: ["127.0.0.1"] });
    await refusedUnheard(() => https.fetch(server.url("/doc.pdf"), { maxBytes: 1024, what: "document" }), "VALIDATION_ERROR");
    const withCredentials = `http://user:secret@127.0.0.1:${server.port}/doc.pdf`;
    const error = await refusedUnheard(() => allowLoopback().fetch(withCredentials, { maxBytes: 1024, what: "document" }), "VALIDATION_ERROR");
    expect(error.message).toMatch(/credentials/);
    expect(error.message).not.toContain("secret");
    await expectSignetError(allowLoopback().fetch("file:///etc/passwd", { maxBytes: 1024, what: "document" }), "VALIDATION_ERROR");
    await expectSignetError(allowLoopback().fetch("not a url", { maxBytes: 1024, what: "document" }), "VALIDATION_ERROR");
  });

  it("refuses a redirect to a non-http scheme", async () => {
    const first = `/redirect?to=${encodeURIComponent("file:///etc/passwd")}`;
    await refusedUnheard(() => allowLoopback().fetch(server.url(first), { maxBytes: 1024, what: "document" }), "FETCH_FAILED", [`127.0.0.1 GET ${first}`]);
  });

  it("stops on a declared size over the cap", async () => {
    await expectSignetError(allowLoopback().fetch(server.url("/big-declared"), { maxBytes: 1024 * 1024, what: "document" }), "PAYLOAD_TOO_LARGE");
  });

  it("stops streaming once the cap is passed", async () => {
    await expectSignetError(allowLoopback().fetch(server.url("/big-streamed"), { maxBytes: 1024 * 1024, what: "document" }), "PAYLOAD_TOO_LARGE");
  });

  it("gives up on a server that never answers", async () => {
    const started = Date.now();
    const error = await expectSignetError(allowLoopback().fetch(server.url("/hang"), { maxBytes: 1024, what: "document" }), "FETCH_FAILED");
    expect(error.message).toMatch(/within 1.5 s/);
    // It waited for its limit (a lower bound no load breaks) and gave up well before the test's own 60 s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it("gives up on a body that stalls", async () => {
    const error = await expectSignetError(allowLoopback().fetch(server.url("/slow-body"), { maxBytes: 1024, what: "document" }), "FETCH_FAILED");
    expect(error.message).toMatch(/within 1.5 s/);
  });

  it("reports the status of a failed fetch", async () => {
    const error = await expectSignetError(allowLoopback().fetch(server.url("/missing"), { maxBytes: 1024, what: "image" }), "FETCH_FAILED");
    expect(error.message).toBe("Could not fetch the image: the server answered HTTP 404.");
  });
});
