// Small HTTP behaviours a newcomer meets first, against the local server:
// HEAD on GET routes, a client's X-Request-Id kept and echoed, an unencoded + in ?email= explained,
// a missing query parameter called "required".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

let api: LocalApi;

beforeAll(async () => {
  api = await startLocalApi("http-small", { SIGNET_TABLE: "signet-http-small" });
}, 180_000);

afterAll(async () => {
  await api?.close();
});

describe("HEAD", () => {
  it.each(["/v1/health", "/v1/verify/key", "/openapi.json", "/"])("HEAD %s answers like GET, without a body", async (path) => {
    const [head, get] = await Promise.all([fetch(`${api.url}${path}`, { method: "HEAD" }), fetch(`${api.url}${path}`)]);
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect(await head.text()).toBe("");
  });

  it("a wrong method on a GET route lists HEAD in Allow", async () => {
    const response = await fetch(`${api.url}/v1/health`, { method: "DELETE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });
});

describe("X-Request-Id", () => {
  it.each([
    ["a valid id is kept and echoed, in error bodies too", "trace-42.abc_DEF", true],
    ["128 characters is the longest kept", "a".repeat(128), true],
    ["129 characters is replaced", "a".repeat(129), false],
    ["characters outside [A-Za-z0-9._-] are replaced", "id with spaces", false],
    ["a header-injection attempt is replaced", 'x"}],"code":"FAKE', false],
  ])("%s", async (_name, id, kept) => {
    const response = await fetch(`${api.url}/v1/nope`, { headers: { "X-Request-Id": id } });
    const body = (await response.json()) as { requestId: string };
    const echoed = response.headers.get("x-request-id");
    expect(echoed).toBe(body.requestId);
    if (kept) expect(echoed).toBe(id);
    else expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("is echoed on a success too", async () => {
    const response = await fetch(`${api.url}/v1/health`, { headers: { "x-request-id": "probe-1" } });
    expect(response.headers.get("x-request-id")).toBe("probe-1");
  });
});

describe("query parameters", () => {
  it("an unencoded + in ?email= (arrives as a space) gets the %2B hint", async () => {
    const response = await fetch(`${api.url}/v1/auth/register?email=me+1@example.com`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { details: Array<{ field: string; issue: string }> };
    expect(body.details).toEqual([{ field: "query.email", issue: expect.stringContaining("write it as %2B (me%2B1@example.com)") }]);
    // Encoded, the same address is accepted.
    expect((await fetch(`${api.url}/v1/auth/register?email=me%2B1@example.com`)).status).toBe(200);
  });

  it.each([
    ["/v1/auth/register", [{ field: "query.email", issue: "required" }]],
    ["/v1/auth/verify?email=me@example.com", [{ field: "query.code", issue: "required" }]],
    [
      "/v1/auth/verify",
      [
        { field: "query.email", issue: "required" },
        { field: "query.code", issue: "required" },
      ],
    ],
  ])("%s names each missing parameter as required", async (path, details) => {
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(400);
    expect(((await response.json()) as { details: unknown }).details).toEqual(details);
  });

  it("a present but invalid parameter keeps its specific issue", async () => {
    const response = await fetch(`${api.url}/v1/auth/verify?email=me@example.com&code=12`);
    expect(((await response.json()) as { details: unknown }).details).toEqual([{ field: "query.code", issue: "must be the 6 digits from the e-mail" }]);
  });
});
