// The error-to-HTTP mapping as a table (Gotenberg's TestConvertRoute_FailureStatus is the model):
// one row per input (an error a route's logic throws), its expected status and body, through the
// one middleware chain. The statuses are written out here, not read from the error table, so a
// change of the table must be a change of this test too; a new error code without a row does not
// compile.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type ErrorCode, type ErrorDetail, SignetError } from "#domain/shared/errors.ts";
import { defineRoute } from "#http/contract.ts";
import { type HttpSettings, httpHandler } from "#http/pipeline.ts";
import { call, getEvent } from "#test/helpers/keys-harness.ts";

const settings: HttpSettings = { runtime: "local", corsOrigin: "*", maxRequestBytes: 1024, maxDocumentBytes: 1024, maxJsonDepth: 8 };

const probe = defineRoute({
  name: "error-probe",
  method: "GET",
  path: "/v1/error-probe",
  auth: false,
  summary: "Throws what the test says",
  description: "A route for this test only.",
  tag: "test",
  query: z.object({}).loose(),
  body: { kind: "none" },
  success: { description: "never", contentType: "application/json" },
  errors: [],
});

/** answer runs the chain with a route whose logic throws `thrown`, as request `requestId`. */
async function answer(thrown: unknown, requestId = "row-1") {
  const handler = httpHandler(
    probe,
    async () => {
      throw thrown;
    },
    { settings },
  );
  const event = getEvent(probe.path, {});
  event.headers = { "X-Request-Id": requestId };
  return call(handler, event);
}

// Every code: its status and the reason phrase the body's `error` member carries.
const statuses = {
  VALIDATION_ERROR: [400, "Bad Request"],
  AUTHENTICATION_ERROR: [401, "Unauthorized"],
  REQUEST_REJECTED: [403, "Forbidden"],
  NOT_FOUND: [404, "Not Found"],
  METHOD_NOT_ALLOWED: [405, "Method Not Allowed"],
  REQUEST_TIMEOUT: [408, "Request Timeout"],
  PAYLOAD_TOO_LARGE: [413, "Payload Too Large"],
  IMAGE_TOO_LARGE: [413, "Payload Too Large"],
  UNSUPPORTED_MEDIA_TYPE: [415, "Unsupported Media Type"],
  INVALID_DOCUMENT: [422, "Unprocessable Entity"],
  ENCRYPTED_DOCUMENT: [422, "Unprocessable Entity"],
  WRONG_PASSWORD: [422, "Unprocessable Entity"],
  WOULD_INVALIDATE_SIGNATURES: [409, "Conflict"],
  FIELD_NOT_FOUND: [422, "Unprocessable Entity"],
  FIELD_TYPE_MISMATCH: [422, "Unprocessable Entity"],
  FIELD_READ_ONLY: [422, "Unprocessable Entity"],
  INVALID_FIELD_VALUE: [422, "Unprocessable Entity"],
  XFA_FORM: [422, "Unprocessable Entity"],
  FIELD_ALREADY_SIGNED: [422, "Unprocessable Entity"],
  FIELD_PLACEMENT: [422, "Unprocessable Entity"],
  CERTIFICATION_NOT_FIRST: [422, "Unprocessable Entity"],
  DATA_MISSING: [422, "Unprocessable Entity"],
  INVALID_IMAGE: [422, "Unprocessable Entity"],
  MISSING_SUBMIT_EVENT: [422, "Unprocessable Entity"],
  LEVEL_UNAVAILABLE: [422, "Unprocessable Entity"],
  INVALID_CODE: [422, "Unprocessable Entity"],
  CODE_EXPIRED: [422, "Unprocessable Entity"],
  IDEMPOTENCY_KEY_REUSED: [422, "Unprocessable Entity"],
  IDEMPOTENCY_KEY_IN_USE: [409, "Conflict"],
  RATE_LIMIT_ERROR: [429, "Too Many Requests"],
  HEADERS_TOO_LARGE: [431, "Request Header Fields Too Large"],
  INTERNAL_ERROR: [500, "Internal Server Error"],
  CONVERSION_FAILED: [500, "Internal Server Error"],
  FETCH_FAILED: [502, "Bad Gateway"],
  EMAIL_FAILED: [502, "Bad Gateway"],
  TSA_FAILED: [502, "Bad Gateway"],
  SERVICE_UNAVAILABLE: [503, "Service Unavailable"],
  CONVERSION_TIMEOUT: [504, "Gateway Timeout"],
  SYNC_TIMEOUT: [504, "Gateway Timeout"],
} as const satisfies Record<ErrorCode, readonly [number, string]>;

describe("a SignetError becomes its status and the error body", () => {
  it.each(Object.entries(statuses) as Array<[ErrorCode, readonly [number, string]]>)("%s", async (code, [status, error]) => {
    const { status: got, headers, json } = await answer(new SignetError(code, `Fix the ${code.toLowerCase()}.`), `row-${code}`);
    expect(got).toBe(status);
    expect(headers["content-type"]).toMatch(/^application\/json/);
    expect(headers["x-request-id"]).toBe(`row-${code}`);
    expect(json).toEqual({ code, error, message: `Fix the ${code.toLowerCase()}.`, requestId: `row-${code}` });
    expect(headers["retry-after"]).toBeUndefined();
  });
});

const details: ErrorDetail[] = [{ field: "fields.0.id", issue: "matches no control" }];
const hidden = "/var/task/secret-path password=hunter2";

// What else an error carries, row by row: the thrown value, the expected status, headers and body.
const rows: Array<{ name: string; thrown: unknown; status: number; headers?: Record<string, string>; body: Record<string, unknown> }> = [
  {
    name: "details go out as they are",
    thrown: new SignetError("FIELD_NOT_FOUND", "A field matches nothing.", { details }),
    status: 422,
    body: { code: "FIELD_NOT_FOUND", error: "Unprocessable Entity", message: "A field matches nothing.", requestId: "row-1", details },
  },
  {
    name: "an empty details list is left out",
    thrown: new SignetError("VALIDATION_ERROR", "Bad member.", { details: [] }),
    status: 400,
    body: { code: "VALIDATION_ERROR", error: "Bad Request", message: "Bad member.", requestId: "row-1" },
  },
  {
    name: "a wait becomes Retry-After, rounded up to whole seconds",
    thrown: new SignetError("RATE_LIMIT_ERROR", "Slow down.", { retryAfterSeconds: 1.2 }),
    status: 429,
    headers: { "retry-after": "2" },
    body: { code: "RATE_LIMIT_ERROR", error: "Too Many Requests", message: "Slow down.", requestId: "row-1" },
  },
  {
    name: "a wait of zero is Retry-After: 0 (act now)",
    thrown: new SignetError("CODE_EXPIRED", "Ask for a new code.", { retryAfterSeconds: 0 }),
    status: 422,
    headers: { "retry-after": "0" },
    body: { code: "CODE_EXPIRED", error: "Unprocessable Entity", message: "Ask for a new code.", requestId: "row-1" },
  },
  {
    name: "the next step is worded as an endpoint after the message",
    thrown: new SignetError("PAYLOAD_TOO_LARGE", "The document is too large.", { next: "upload" }),
    status: 413,
    body: { code: "PAYLOAD_TOO_LARGE", error: "Payload Too Large", message: "The document is too large. Uploads: POST /v1/uploads.", requestId: "row-1" },
  },
  {
    name: "a 5xx SignetError sends its message, never its cause",
    thrown: new SignetError("CONVERSION_FAILED", "LibreOffice could not convert the document.", { cause: new Error(hidden) }),
    status: 500,
    body: { code: "CONVERSION_FAILED", error: "Internal Server Error", message: "LibreOffice could not convert the document.", requestId: "row-1" },
  },
  {
    name: "any other error is a 500 with a generic message",
    thrown: new Error(hidden),
    status: 500,
    body: {
      code: "INTERNAL_ERROR",
      error: "Internal Server Error",
      message: "Something went wrong on our side. Quote request id row-1 when reporting it.",
      requestId: "row-1",
    },
  },
  {
    name: "a thrown non-error is a 500 with a generic message too",
    thrown: hidden,
    status: 500,
    body: {
      code: "INTERNAL_ERROR",
      error: "Internal Server Error",
      message: "Something went wrong on our side. Quote request id row-1 when reporting it.",
      requestId: "row-1",
    },
  },
];

describe("what an error carries besides its code", () => {
  it.each(rows)("$name", async ({ thrown, status, headers = {}, body }) => {
    const got = await answer(thrown);
    expect(got.status).toBe(status);
    expect(got.json).toEqual(body);
    for (const [name, value] of Object.entries(headers)) expect(got.headers[name]).toBe(value);
    if (!("retry-after" in headers)) expect(got.headers["retry-after"]).toBeUndefined();
    expect(JSON.stringify(got.json)).not.toContain("hunter2");
  });
});
