import { describe, expect, it } from "vitest";
import type { SignetError } from "#domain/shared/errors.ts";
import { checkIdempotencyKey, existingAnswer, idempotencyScope, isReplayable, requestFingerprint, type IdempotencyRecord } from "#domain/shared/idempotency.ts";

const request = { method: "POST", path: "/v1/convert", query: { from: ["docx"], to: ["pdf"] }, body: Buffer.from("body") };

describe("Idempotency-Key syntax: 1-255 printable ASCII characters", () => {
  it.each([
    ["a UUID", "5f1c7f2e-8d4b-4a7e-9c61-0e7f3d2b9a10", true],
    ["one character", "x", true],
    ["255 characters", "k".repeat(255), true],
    ["spaces and symbols", ' ~!"#$%&()*+,/:;<=>?@[\\]^_`{|}', true],
    ["empty", "", false],
    ["256 characters", "k".repeat(256), false],
    ["a tab", "a\tb", false],
    ["DEL", "a\u007fb", false],
    ["a non-ASCII letter", "clé", false],
  ])("%s", (_name, key, accepted) => {
    if (accepted) expect(checkIdempotencyKey(key)).toBe(key);
    else expect(() => checkIdempotencyKey(key)).toThrow(expect.objectContaining({ code: "VALIDATION_ERROR" }));
  });
});

describe("the request fingerprint", () => {
  const base = requestFingerprint(request);
  it.each([
    ["the method", { ...request, method: "PUT" }],
    ["the path", { ...request, path: "/v1/sign" }],
    ["a query value", { ...request, query: { from: ["docx"], to: ["docx"] } }],
    ["a query parameter more", { ...request, query: { ...request.query, pdfa: ["2b"] } }],
    ["one byte of the body", { ...request, body: Buffer.from("bodY") }],
    ["a query that spells the body's start", { ...request, query: { from: ['docx"]]\nbody'] }, body: Buffer.alloc(0) }],
  ])("changes with %s", (_name, changed) => {
    expect(requestFingerprint(changed)).not.toBe(base);
  });
  it("does not depend on the order of query parameters, and is SHA-256 hex", () => {
    expect(requestFingerprint({ ...request, query: { to: ["pdf"], from: ["docx"] } })).toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });
  it("scopes by API key: the same Idempotency-Key of two keys names two records", () => {
    expect(idempotencyScope("key_a", "k")).not.toBe(idempotencyScope("key_b", "k"));
    expect(idempotencyScope("key_a", "bc")).not.toBe(idempotencyScope("key_ab", "c"));
  });
});

describe("which answers are kept", () => {
  it.each([
    [200, true],
    [400, true],
    [413, true],
    [415, true],
    [422, true],
    [404, false],
    [409, false],
    [429, false],
    [500, false],
    [502, false],
    [503, false],
    [504, false],
  ])("%i: %s", (status, kept) => {
    expect(isReplayable(status)).toBe(kept);
  });
});

describe("what a retry gets when the key has a record", () => {
  const answer = { statusCode: 200, headers: {}, encoding: "text" as const, body: Buffer.from("{}") };
  const codeOf = (record: IdempotencyRecord, fingerprint: string) => {
    try {
      existingAnswer(record, fingerprint, 1_000);
      return "answer";
    } catch (error) {
      return `${(error as SignetError).code} ${(error as SignetError).retryAfterSeconds ?? ""}`.trim();
    }
  };
  it.each([
    ["done, same request", { state: "done", fingerprint: "f", answer } as const, "f", "answer"],
    ["done, other request", { state: "done", fingerprint: "f", answer } as const, "g", "IDEMPOTENCY_KEY_REUSED"],
    ["running, same request", { state: "running", fingerprint: "f", lockExpiresAt: 60_000 } as const, "f", "IDEMPOTENCY_KEY_IN_USE 2"],
    ["running, lock nearly over", { state: "running", fingerprint: "f", lockExpiresAt: 1_500 } as const, "f", "IDEMPOTENCY_KEY_IN_USE 1"],
    ["running, other request", { state: "running", fingerprint: "f", lockExpiresAt: 60_000 } as const, "g", "IDEMPOTENCY_KEY_REUSED"],
  ])("%s", (_name, record, fingerprint, expected) => {
    expect(codeOf(record, fingerprint)).toBe(expected);
  });
});
