import { createHash } from "node:crypto";
import { SignetError } from "#domain/shared/errors.ts";

/**
 * Idempotency keys (IETF httpapi draft "The Idempotency-Key HTTP Header Field"): a caller names a
 * request with a key of its choosing; the first answer is kept for IDEMPOTENCY_TTL_SECONDS, scoped
 * to the caller's API key and bound to the request's fingerprint, and a retry with the same key
 * and the same request gets that answer again instead of doing the work twice.
 */

/** IDEMPOTENCY_TTL_SECONDS is how long an answer is kept for replay: 24 hours. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** IN_USE_RETRY_SECONDS is the Retry-After of a 409 while the first request still runs (never past its lock). */
const IN_USE_RETRY_SECONDS = 2;

/** IDEMPOTENCY_KEY is the accepted key syntax: 1-255 printable ASCII characters (space to tilde). */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** checkIdempotencyKey refuses (400) a key outside the accepted syntax; the key as given otherwise. */
export function checkIdempotencyKey(key: string): string {
  if (IDEMPOTENCY_KEY.test(key)) return key;
  throw new SignetError("VALIDATION_ERROR", "The Idempotency-Key header must be 1 to 255 printable ASCII characters (a UUID is a good choice).", {
    details: [
      { field: "header.idempotency-key", issue: key.length > 255 ? `${key.length} characters; at most 255` : "empty, or a character outside printable ASCII" },
    ],
  });
}

/** RequestFacts are what binds a key to one request: method, path, the query's pairs and the body bytes. */
export interface RequestFacts {
  method: string;
  path: string;
  /** Each query parameter with every value it was given, in any order (sorted here). */
  query: Record<string, readonly string[] | undefined>;
  body: Uint8Array;
}

/** requestFingerprint is the SHA-256 (hex) of a request: method, path, the sorted query and the body bytes. */
export function requestFingerprint(request: RequestFacts): string {
  const query = Object.entries(request.query)
    .map(([name, values]) => [name, [...(values ?? [])]] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // The head is JSON, so no choice of path or query can spell another request's head.
  return createHash("sha256")
    .update(JSON.stringify([request.method.toUpperCase(), request.path, query]))
    .update("\n")
    .update(request.body)
    .digest("hex");
}

/** idempotencyScope is the record's name: the SHA-256 of the caller's key id and the idempotency key (neither is stored as given). */
export function idempotencyScope(keyId: string, idempotencyKey: string): string {
  return createHash("sha256").update(keyId).update("\u0000").update(idempotencyKey).digest("hex");
}

/** StoredAnswer is an answer as it is kept and replayed: status, the route's own headers and the body's exact bytes. */
export interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  /** "text": the body is UTF-8 text (JSON); "binary": raw bytes (a converted file). */
  encoding: "text" | "binary";
  body: Buffer;
}

/** IdempotencyRecord is what the store holds for one scope: the first request still running, or its answer. */
export type IdempotencyRecord = { state: "running"; fingerprint: string; lockExpiresAt: number } | { state: "done"; fingerprint: string; answer: StoredAnswer };

/** Claim is one attempt to become the request that does the work under a scope (times in epoch ms). */
export interface Claim {
  scope: string;
  fingerprint: string;
  /** Names this run: only its holder may complete or release the record. */
  lockToken: string;
  now: number;
  /** Until when the run holds the scope; a record still running after that is taken over (its run died). */
  lockExpiresAt: number;
  /** When the record (and a stored answer) may be forgotten. */
  expiresAt: number;
}

/**
 * IdempotencyStore keeps one record per scope with conditional writes (DynamoDB and S3 on AWS,
 * dynalite and the S3 stand-in locally). Job records of asynchronous work can live beside it.
 */
export interface IdempotencyStore {
  /** claim makes the record running for this claim when none is live or the live one's lock expired; otherwise answers the live record. */
  claim(claim: Claim): Promise<"claimed" | IdempotencyRecord>;
  /** complete keeps the answer, if this lockToken still holds the scope; false when another run took it over. */
  complete(scope: string, lockToken: string, answer: StoredAnswer, expiresAt: number): Promise<boolean>;
  /** release forgets the running record of this lockToken (a failed run: a retry runs again). */
  release(scope: string, lockToken: string): Promise<void>;
}

/**
 * isReplayable says which answers are kept: successes and the client errors the same request
 * always gets again (400, 413, 415, 422). Not kept, so a retry runs again: 404 (the upload may
 * exist by the retry), 409, 429 (a limit that passes) and every 5xx (a failure on our side).
 */
export function isReplayable(statusCode: number): boolean {
  if (statusCode < 400) return true;
  return statusCode < 500 && ![404, 408, 409, 429].includes(statusCode);
}

/**
 * existingAnswer decides what a retry gets when a record already holds its scope: another
 * request's fingerprint is 422 IDEMPOTENCY_KEY_REUSED; a run still holding the lock is 409
 * IDEMPOTENCY_KEY_IN_USE with Retry-After; otherwise the stored answer.
 */
export function existingAnswer(record: IdempotencyRecord, fingerprint: string, now: number): StoredAnswer {
  if (record.fingerprint !== fingerprint) {
    throw new SignetError(
      "IDEMPOTENCY_KEY_REUSED",
      "This Idempotency-Key was used for a different request (method, path, query or body) in the last 24 hours; use a new key for a new request.",
    );
  }
  if (record.state === "running") {
    const lockSeconds = Math.max(1, Math.ceil((record.lockExpiresAt - now) / 1000));
    throw new SignetError(
      "IDEMPOTENCY_KEY_IN_USE",
      "The first request with this Idempotency-Key is still being processed; retry after the seconds in Retry-After to get its answer.",
      { retryAfterSeconds: Math.min(IN_USE_RETRY_SECONDS, lockSeconds) },
    );
  }
  return record.answer;
}
