import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalServer } from "#local/server.ts";

// A small request cap so the 413 path is cheap to exercise; set before the config is imported.
process.env.SIGNET_MAX_REQUEST_BYTES = String(256 * 1024);
process.env.SIGNET_MAX_JSON_DEPTH = "32";

let server: LocalServer;
beforeAll(async () => {
  const { startLocalServer } = await import("#local/server.ts");
  server = await startLocalServer({ port: 0, host: "127.0.0.1" });
});
afterAll(() => server.close());

const pdfBase64 = Buffer.from("%PDF-1.4\n%%EOF\n").toString("base64");

async function call(method: string, path: string, init: { body?: string | Buffer; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${server.url}${path}`, { method, body: init.body ?? null, headers: init.headers ?? {} });
  const text = await response.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON: assertions below say so
  }
  return { status: response.status, headers: response.headers, json, text };
}

const JSON_TYPE = { "content-type": "application/json" };

describe("the local server and the pipeline", () => {
  it("answers the health check as docs/api.md shows", async () => {
    const { status, json, headers } = await call("GET", "/v1/health");
    expect(status).toBe(200);
    expect(json).toEqual({ status: "healthy", timestamp: expect.any(String), version: expect.any(String), checks: { libreoffice: { status: "up" } } });
    expect(Number.isNaN(Date.parse(json.timestamp as string))).toBe(false);
    expect(headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers.get("x-content-type-options")).toBe("nosniff");
    expect(headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'.*sandbox/);
    expect(headers.get("strict-transport-security")).toContain("max-age");
    expect(headers.get("access-control-allow-origin")).toBe("*");
  });

  it("answers GET / with a short description", async () => {
    const { status, json } = await call("GET", "/");
    expect(status).toBe(200);
    expect(json).toMatchObject({ name: "Signet", docs: "/docs", openapi: "/openapi.json" });
  });

  // One row: request, expected status, code, message pattern, details (when any).
  const rows: Array<{
    name: string;
    method: string;
    path: string;
    body?: string | Buffer;
    headers?: Record<string, string>;
    status: number;
    code: string;
    message: RegExp;
    details?: Array<{ field: string; issue: RegExp | string }>;
  }> = [
    { name: "unknown route", method: "GET", path: "/v1/nope", status: 404, code: "NOT_FOUND", message: /no route \/v1\/nope/ },
    { name: "unknown route with a query", method: "GET", path: "/v2/sign?x=1", status: 404, code: "NOT_FOUND", message: /no route/ },
    { name: "wrong method", method: "DELETE", path: "/v1/health", status: 405, code: "METHOD_NOT_ALLOWED", message: /use GET/ },
    {
      name: "wrong content type",
      method: "POST",
      path: "/v1/verify",
      body: "document=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      status: 415,
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: /Content-Type: application\/json/,
    },
    { name: "no content type", method: "POST", path: "/v1/verify", body: Buffer.from("{}"), status: 415, code: "UNSUPPORTED_MEDIA_TYPE", message: /got none/ },
    {
      name: "malformed JSON",
      method: "POST",
      path: "/v1/verify",
      body: '{"document": {',
      headers: JSON_TYPE,
      status: 400,
      code: "VALIDATION_ERROR",
      message: /not valid JSON/,
    },
    { name: "empty body", method: "POST", path: "/v1/verify", headers: JSON_TYPE, status: 400, code: "VALIDATION_ERROR", message: /empty/ },
    {
      name: "deep JSON",
      method: "POST",
      path: "/v1/verify",
      body: `{"document":${"[".repeat(40)}${"]".repeat(40)}}`,
      headers: JSON_TYPE,
      status: 400,
      code: "VALIDATION_ERROR",
      message: /deeper than 32/,
    },
    {
      name: "body over the cap",
      method: "POST",
      path: "/v1/verify",
      body: JSON.stringify({ document: { base64: "A".repeat(300 * 1024) } }),
      headers: JSON_TYPE,
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
      message: /^The request body is over the 256 KB limit; upload documents \(up to .+\) with POST \/v1\/uploads and send the reference instead\.$/,
    },
    {
      name: "document with both members",
      method: "POST",
      path: "/v1/verify",
      body: JSON.stringify({ document: { base64: pdfBase64, url: "https://example.com/a.pdf" } }),
      headers: JSON_TYPE,
      status: 400,
      code: "VALIDATION_ERROR",
      message: /see details/,
      details: [{ field: "document", issue: "give exactly one of document.base64, document.url or document.upload" }],
    },
    {
      name: "document with neither member",
      method: "POST",
      path: "/v1/verify",
      body: JSON.stringify({ document: {} }),
      headers: JSON_TYPE,
      status: 400,
      code: "VALIDATION_ERROR",
      message: /see details/,
      details: [{ field: "document", issue: "give exactly one of document.base64, document.url or document.upload" }],
    },
    {
      name: "unknown members (UTF-8 survives the base64 hop)",
      method: "POST",
      path: "/v1/verify",
      body: JSON.stringify({ document: { base64: pdfBase64 }, größe: 1 }),
      headers: JSON_TYPE,
      status: 400,
      code: "VALIDATION_ERROR",
      message: /see details/,
      details: [{ field: "body", issue: "unknown member(s): größe" }],
    },
    {
      name: "query on a route without one",
      method: "GET",
      path: "/v1/health?verbose=1",
      status: 400,
      code: "VALIDATION_ERROR",
      message: /no query parameters/,
      details: [{ field: "query.verbose", issue: "unknown parameter" }],
    },
    // The service's own fetcher, through the endpoint: SSRF attempts get the error layout.
    ...[
      "https://169.254.169.254/latest/meta-data/",
      "https://[::ffff:127.0.0.1]/doc.pdf",
      "https://2130706433/doc.pdf",
      "https://0x7f.1/doc.pdf",
      "https://[fd00:ec2::254]/latest/meta-data/",
    ].map((url) => ({
      name: `document.url ${url}`,
      method: "POST",
      path: "/v1/verify",
      body: JSON.stringify({ document: { url } }),
      headers: JSON_TYPE,
      status: 502,
      code: "FETCH_FAILED",
      // The refusal names the address and its kind (169.254.169.254 is link-local, not public).
      message: /^Could not fetch the document: .*(private|loopback|link-local|global unicast).*, not public\.$/,
    })),
    {
      name: "document.url over plain http",
      method: "POST",
      path: "/v1/verify",
      body: JSON.stringify({ document: { url: "http://example.com/a.pdf" } }),
      headers: JSON_TYPE,
      status: 400,
      code: "VALIDATION_ERROR",
      message: /must use https \(got http\)/,
    },
    {
      name: "document.url with credentials",
      method: "POST",
      path: "/v1/verify",
      body: JSON.stringify({ document: { url: "https://user:pw@example.com/a.pdf" } }),
      headers: JSON_TYPE,
      status: 400,
      code: "VALIDATION_ERROR",
      message: /must not contain credentials/,
    },
    {
      name: "missing API key",
      method: "POST",
      path: "/v1/sign",
      body: "{}",
      headers: JSON_TYPE,
      status: 401,
      code: "AUTHENTICATION_ERROR",
      message: /Authorization: Bearer/,
    },
  ];

  it.each(rows)("$name -> $status $code", async (row) => {
    const { status, json, headers } = await call(row.method, row.path, {
      ...(row.body !== undefined ? { body: row.body } : {}),
      ...(row.headers ? { headers: row.headers } : {}),
    });
    expect(status).toBe(row.status);
    expect(json.code).toBe(row.code);
    expect(json.error).toEqual(expect.any(String));
    expect(json.message).toMatch(row.message);
    expect(json.requestId).toEqual(expect.any(String));
    expect(JSON.stringify(json)).not.toMatch(/\s+at\s.+\.ts:\d+/); // no stack traces
    if (row.details) {
      expect(json.details).toEqual(row.details.map((d) => ({ field: d.field, issue: typeof d.issue === "string" ? d.issue : expect.stringMatching(d.issue) })));
    }
    if (status === 405) expect(headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("answers CORS preflight", async () => {
    const { status, headers } = await call("OPTIONS", "/v1/sign", { headers: { origin: "https://app.example.com", "access-control-request-method": "POST" } });
    expect(status).toBe(204);
    expect(headers.get("access-control-allow-methods")).toContain("POST");
    expect(headers.get("access-control-allow-headers")).toContain("Authorization");
  });

  it("uses the request id of the event in the body and the header", async () => {
    const { json, headers } = await call("GET", "/v1/nope");
    expect(json.requestId).toBe(headers.get("x-request-id"));
  });
});

describe("the handlers as Lambda runs them", () => {
  const context = {} as Context;
  const event = (overrides: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent =>
    ({
      resource: "/v1/health",
      path: "/v1/health",
      httpMethod: "GET",
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId: "gateway-request-id", identity: { sourceIp: "203.0.113.9" } },
      ...overrides,
    }) as unknown as APIGatewayProxyEvent;

  it("takes the request id from API Gateway", async () => {
    const { handler } = await import("#functions/health.ts");
    const response = await handler(event({}), context);
    expect(response.statusCode).toBe(200);
    expect(response.headers?.["X-Request-Id"]).toBe("gateway-request-id");
  });

  it("reads plain and base64 bodies alike, with any header case", async () => {
    const { handler } = await import("#functions/verify.ts");
    const body = JSON.stringify({ document: {} });
    for (const variant of [
      { body, isBase64Encoded: false, headers: { "Content-Type": "application/json" } },
      { body: Buffer.from(body).toString("base64"), isBase64Encoded: true, headers: { "CONTENT-TYPE": "application/json" } },
    ]) {
      const response = await handler(event({ resource: "/v1/verify", path: "/v1/verify", httpMethod: "POST", ...variant }), context);
      expect(response.statusCode).toBe(400);
      expect(JSON.parse(response.body)).toMatchObject({ code: "VALIDATION_ERROR", requestId: "gateway-request-id" });
    }
  });

  it("refuses a body over the cap in the handler too", async () => {
    const { handler } = await import("#functions/verify.ts");
    const response = await handler(
      event({ resource: "/v1/verify", path: "/v1/verify", httpMethod: "POST", headers: { "content-type": "application/json" }, body: "x".repeat(300 * 1024) }),
      context,
    );
    expect(response.statusCode).toBe(413);
    expect(JSON.parse(response.body).code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("the next step an error names", () => {
  // One row: the domain's NextStep, the HTTP words the error table gives it.
  it.each([
    ["convert-doc", /POST \/v1\/convert\?from=doc/],
    ["upload", /POST \/v1\/uploads/],
    ["register", /GET \/v1\/auth\/register\?email=/],
    ["list-keys", /GET \/v1\/keys lists/],
    ["revoke-key", /DELETE \/v1\/keys\/\{id\}/],
    ["list-fields", /POST \/v1\/annotate\/fields/],
  ] as const)("%s is worded as an endpoint by the HTTP layer only", async (next, words) => {
    const { SignetError } = await import("#domain/shared/errors.ts");
    const { toErrorResponse } = await import("#http/error-response.ts");
    const response = toErrorResponse(new SignetError("NOT_FOUND", "Fix the thing.", { next }), "req-1");
    const message = JSON.parse(response.body as string).message as string;
    expect(message.startsWith("Fix the thing. ")).toBe(true);
    expect(message).toMatch(words);
  });
});
