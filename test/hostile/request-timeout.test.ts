// Slow and withheld request bodies against the real local server with a 1 s request time-out
// (SIGNET_REQUEST_TIMEOUT_MS): 408 in the JSON error layout, and Node's own 400/431 answers in that
// layout too. No timed assertions: only that an answer comes at all.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { rawRequest, request } from "./raw-http.ts";

let api: LocalApi;
let port: number;
let key: string;

beforeAll(async () => {
  api = await startLocalApi("hostile-timeout", {
    SIGNET_TABLE: "signet-hostile-timeout",
    SIGNET_REQUEST_TIMEOUT_MS: "1000",
    SIGNET_CONVERSION_CONCURRENCY: "1",
    SIGNET_CONVERSION_MODE: "oneshot",
  });
  port = Number(new URL(api.url).port);
  key = await obtainKey(api, "timeout");
}, 120_000);

afterAll(async () => {
  await api?.close();
});

function expectErrorLayout(json: Record<string, any> | undefined, code: string, error: string): void {
  expect(json).toMatchObject({ code, error, message: expect.any(String), requestId: expect.any(String) });
}

describe("request time-out", () => {
  it("answers 408 REQUEST_TIMEOUT to a client that sends headers and withholds the body", async () => {
    const answer = await rawRequest(port, [request("POST", "/v1/verify", { "Content-Type": "application/json", "Content-Length": 100 })]);
    expect(answer.status).toBe(408);
    expect(answer.headers["content-type"]).toMatch(/application\/json/);
    expectErrorLayout(answer.json, "REQUEST_TIMEOUT", "Request Timeout");
    expect(answer.json?.message).toMatch(/within 1 s/);
  });

  it("answers 408 to a client that trickles its body a byte at a time", async () => {
    const head = request("POST", "/v1/verify", { "Content-Type": "application/json", "Content-Length": 200 });
    const trickle = Array.from({ length: 60 }, () => " ");
    const answer = await rawRequest(port, [head, ...trickle], { pauseMs: 100 });
    expect(answer.status).toBe(408);
    expectErrorLayout(answer.json, "REQUEST_TIMEOUT", "Request Timeout");
  });

  it("answers 408 to a client that never finishes its headers", async () => {
    const answer = await rawRequest(port, ["POST /v1/verify HTTP/1.1\r\nHost: x\r\n"]);
    expect(answer.status).toBe(408);
    expectErrorLayout(answer.json, "REQUEST_TIMEOUT", "Request Timeout");
  });

  it("does not count the handler's own time: a cold LibreOffice conversion longer than the time-out is answered 200", async () => {
    const form = new FormData();
    form.append("file", new Blob([fixtureDocx()]), "slow.docx");
    const response = await fetch(`${api.url}/v1/convert?from=docx`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
  }, 120_000);
});

describe("Node's own answers use the JSON error layout", () => {
  it("431 HEADERS_TOO_LARGE for oversized headers", async () => {
    const answer = await rawRequest(port, [request("GET", "/v1/health", { "X-Big": "a".repeat(100_000) })]);
    expect(answer.status).toBe(431);
    expectErrorLayout(answer.json, "HEADERS_TOO_LARGE", "Request Header Fields Too Large");
  });

  it("400 VALIDATION_ERROR for a request Node cannot parse", async () => {
    const answer = await rawRequest(port, ["GET /v1/health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"]);
    expect(answer.status).toBe(400);
    expectErrorLayout(answer.json, "VALIDATION_ERROR", "Bad Request");
    expect(answer.json?.message).toMatch(/not valid HTTP\/1\.1/);
  });

  it("still answers /v1/health", async () => {
    const response = await fetch(`${api.url}/v1/health`);
    expect(response.status).toBe(200);
  });
});
