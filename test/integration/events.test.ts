import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { matchPath } from "#http/contract.ts";
import { routes } from "#http/routes.ts";
import { startStandIns, type StandIns } from "#local/stand-ins.ts";
import { expectSignedPdf } from "#test/helpers/sign-tools.ts";

// The sample events in events/ are what API Gateway (REST, payload v1, binaryMediaTypes */*)
// hands each function, and what `sam local invoke -e events/<name>.json` feeds it. Here they go
// straight to the same handlers, locally, against the stand-ins and the system's LibreOffice.
// Protected-route events carry the authorizer's Allow context (the gateway has already checked
// the key); the authorizer gets its own TOKEN event.

const eventsDir = new URL("../../events/", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "signet-events-"));
let standIns: StandIns;
let handlers: typeof import("#local/handlers.ts");

beforeAll(async () => {
  // Config is read once, at import: set the environment first.
  standIns = await startStandIns({ sesPort: 0 });
  Object.assign(process.env, standIns.env, { SIGNET_DATA_DIR: dataDir, SIGNET_TABLE: "signet-events" });
  const { ensureKeyTable, keyStoreOptions } = await import("#adapters/dynamodb-key-store.ts");
  await ensureKeyTable(keyStoreOptions());
  handlers = await import("#local/handlers.ts");
}, 120_000);

afterAll(async () => {
  await standIns?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Expected is the status an event must get, and the error code when it is an error. */
interface Expected {
  status: number;
  codes?: string[];
  /** The function the event is for, when its file is not named after it. */
  fn?: string;
}

// One row per event file. auth-verify sends a code nobody was mailed: 422 whatever the store holds.
const expected: Record<string, Expected> = {
  info: { status: 200 },
  health: { status: 200 },
  openapi: { status: 200 },
  docs: { status: 200 },
  "auth-register": { status: 200 },
  "auth-verify": { status: 422, codes: ["INVALID_CODE", "CODE_EXPIRED"] },
  sign: { status: 200 },
  annotate: { status: 200 },
  "annotate-fields": { status: 200 },
  convert: { status: 200 },
  verify: { status: 200 },
  "verify-key": { status: 200 },
  // The sample caller's address holds no keys: an empty list, a 404 for any id, a 404 for an unknown link.
  "keys-list": { status: 200 },
  "keys-revoke": { status: 404, codes: ["NOT_FOUND"] },
  "keys-revoke-link": { status: 404, codes: ["NOT_FOUND"] },
  // Issue 15: a presigned POST into the S3 stand-in (no object is written until a client posts).
  uploads: { status: 200 },
  // No timestamp authority is configured for the events: the renewal says which setting it needs.
  timestamp: { status: 422, codes: ["LEVEL_UNAVAILABLE"] },
  "fallback-not-found": { status: 404, codes: ["NOT_FOUND"], fn: "fallback" },
  "fallback-method-not-allowed": { status: 405, codes: ["METHOD_NOT_ALLOWED"], fn: "fallback" },
  // A browser's CORS preflight for POST /v1/sign: no route claims OPTIONS, so the gateway's ANY
  // method (no authorizer) hands it to the fallback, whose CORS middleware answers it.
  "options-preflight": { status: 204, fn: "fallback" },
};

const proxyEventFiles = readdirSync(eventsDir)
  .filter((file) => file.endsWith(".json") && file !== "authorizer.json")
  .map((file) => file.replace(/\.json$/, ""))
  .sort();
const readEvent = (name: string) => JSON.parse(readFileSync(join(eventsDir, `${name}.json`), "utf8")) as APIGatewayProxyEvent;
const functionOf = (name: string) => expected[name]?.fn ?? name;

const context = (name: string) =>
  ({
    functionName: `signet-${name}`,
    awsRequestId: `events-${name}`,
    getRemainingTimeInMillis: () => 29_000,
    callbackWaitsForEmptyEventLoop: false,
  }) as unknown as Context;

describe("events/", () => {
  it("holds one REST v1 event per route of the catalogue, each matching its route", () => {
    expect(proxyEventFiles).toEqual(Object.keys(expected).sort());
    for (const route of routes) {
      const event = readEvent(route.name);
      expect(event.httpMethod, route.name).toBe(route.method);
      expect(matchPath(route.path, event.path), route.name).toBeDefined();
      expect(event.pathParameters ?? {}, route.name).toEqual(matchPath(route.path, event.path));
      expect(event.resource, route.name).toBe(route.path);
      expect(event.requestContext.authorizer !== null, route.name).toBe(route.auth);
      expect(event.headers.Authorization !== undefined, route.name).toBe(route.auth);
    }
  });

  it("encodes every body in base64, as the gateway does with binaryMediaTypes */*", () => {
    for (const name of proxyEventFiles) {
      const event = readEvent(name);
      if (event.body === null) continue;
      expect(event.isBase64Encoded, name).toBe(true);
      expect(Buffer.from(event.body, "base64").toString("base64"), name).toBe(event.body);
    }
  });

  // Sequential: auth-verify must run after auth-register, and LibreOffice runs once at a time.
  for (const name of Object.keys(expected)) {
    it(`${name}.json answers ${expected[name]!.status}`, async () => {
      const fn = functionOf(name);
      const handler = fn === "fallback" ? handlers.fallbackHandler : handlers.entryHandlers[fn]!;
      const response = await handler(readEvent(name), context(fn));
      const want = expected[name]!;
      expect(response.statusCode, `${name}: ${String(response.body).slice(0, 300)}`).toBe(want.status);
      // The CORS middleware answers a preflight before the request-id step runs.
      if (readEvent(name).httpMethod !== "OPTIONS") expect(response.headers?.["X-Request-Id"], name).toBe(readEvent(name).requestContext.requestId);
      if (want.codes) expect(want.codes, name).toContain((JSON.parse(response.body) as { code: string }).code);
      if (fn === "convert" && want.status === 200) {
        expect(response.isBase64Encoded).toBe(true);
        expect(Buffer.from(response.body, "base64").subarray(0, 5).toString("latin1")).toBe("%PDF-");
      }
      if (fn === "fallback" && want.status === 405) expect(response.headers?.Allow).toContain("POST");
      if (fn === "sign" && want.status === 200) {
        // The signed PDF itself, checked by pdfsig and qpdf; the event's document is its prefix.
        const request = JSON.parse(Buffer.from(readEvent(name).body!, "base64").toString("utf8")) as { document: { base64: string } };
        const answer = JSON.parse(response.body) as { document: { base64: string; contentType: string } };
        expect(answer.document.contentType).toBe("application/pdf");
        await expectSignedPdf(Buffer.from(answer.document.base64, "base64"), { input: Buffer.from(request.document.base64, "base64") });
      }
    }, 120_000);
  }

  it("options-preflight.json is a preflight for a protected route, answered with the allow headers and no body", async () => {
    const event = readEvent("options-preflight");
    expect(event).toMatchObject({ httpMethod: "OPTIONS", path: "/v1/sign", requestContext: { authorizer: null } });
    expect(routes.find((route) => route.path === event.path)?.auth).toBe(true);
    expect(event.headers).toMatchObject({ Origin: expect.any(String), "Access-Control-Request-Method": "POST" });
    expect(event.headers.Authorization).toBeUndefined();
    const response = await handlers.fallbackHandler(event, context("fallback"));
    expect(response.statusCode).toBe(204);
    expect(response.body ?? "").toBe("");
    expect(response.headers).toMatchObject({
      "Access-Control-Allow-Origin": "*",
      "Access-Control-Allow-Methods": expect.stringContaining("POST"),
      "Access-Control-Allow-Headers": expect.stringMatching(/Authorization/),
      "Access-Control-Max-Age": "600",
    });
    expect(String(response.headers?.["Access-Control-Allow-Headers"])).toMatch(/Content-Type/);
  });

  it("authorizer.json (a key with a bad checksum) is denied with a message, before any database read", async () => {
    const event = JSON.parse(readFileSync(join(eventsDir, "authorizer.json"), "utf8"));
    const result = await handlers.authorizerHandler(event, context("authorizer"));
    expect(result.policyDocument.Statement[0]?.Effect).toBe("Deny");
    // The checksum verdict is reached before the key store is asked.
    expect(String(result.context?.message ?? "")).toMatch(/checksum does not match/);
  });
});
