import { randomUUID } from "node:crypto";
import type { Context } from "aws-lambda";
import { logger } from "#adapters/powertools-logger.ts";
import { SignetError, isSignetError } from "#domain/shared/errors.ts";
import {
  IDEMPOTENCY_TTL_SECONDS,
  type IdempotencyStore,
  type StoredAnswer,
  checkIdempotencyKey,
  existingAnswer,
  idempotencyScope,
  isReplayable,
  requestFingerprint,
} from "#domain/shared/idempotency.ts";
import { callerOf } from "#http/caller.ts";
import { errorTable } from "#http/error-table.ts";
import { toErrorResponse } from "#http/error-response.ts";
import { jobRunOf } from "#http/jobs.ts";
import { partsOf, type PipelineEvent } from "#http/middlewares/chain.ts";
import { requestIdOf } from "#http/middlewares/request-facts.ts";
import { bodyChunks, bodyPartsOf, type HttpResponse } from "#http/responses.ts";
import { INTEGRATION_TIMEOUT_SECONDS, STREAMING_TIMEOUT_SECONDS } from "#functions/timeouts.ts";

/** IdempotencyDeps are the store of idempotency records (none: a request with the header is refused 503) and the clock. */
export interface IdempotencyDeps {
  store: IdempotencyStore | undefined;
  /** Epoch milliseconds. */
  now: () => number;
}

/** REPLAYED_HEADER marks an answer given again from the store (IETF httpapi idempotency draft). */
const REPLAYED_HEADER = "Idempotent-Replayed";

/** LOCK_MARGIN_MS is added to a run's time left: the time its answer takes to be kept. */
const LOCK_MARGIN_MS = 1_000;

type Work = (event: PipelineEvent, context: Context) => Promise<HttpResponse>;

/** idempotencyKeyOf is the request's Idempotency-Key (checked), or undefined when it has none. */
function idempotencyKeyOf(event: PipelineEvent): string | undefined {
  const given = Object.entries(event.multiValueHeaders ?? {}).find(([name]) => name.toLowerCase() === "idempotency-key")?.[1];
  if (given && given.length > 1) {
    throw new SignetError("VALIDATION_ERROR", "Send the Idempotency-Key header once.", {
      details: [{ field: "header.idempotency-key", issue: `given ${given.length} times` }],
    });
  }
  const value = event.headers?.["idempotency-key"]; // lower-case after the header normalizer
  return value === undefined ? undefined : checkIdempotencyKey(value);
}

/**
 * runAnchorOf is the idempotency key of a job's run: the job's own id, behind a control character
 * no Idempotency-Key header can carry. A run that did the work and died before the job kept the
 * answer (SQS delivers the job again) gets that answer back instead of doing the work twice.
 */
function runAnchorOf(event: PipelineEvent): string | undefined {
  const jobId = jobRunOf(event);
  return jobId === undefined ? undefined : `\u0001job-run\u0001${jobId}`;
}

/** answerOf is a response as it is kept: its status, its own headers and the exact bytes of its body. */
export function answerOf(response: HttpResponse): StoredAnswer {
  const headers = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, value]) => [name, String(value)]));
  const parts = bodyPartsOf(response);
  if (parts)
    return { statusCode: response.statusCode, headers, encoding: "text", body: Buffer.concat([...bodyChunks(parts)].map((chunk) => Buffer.from(chunk))) };
  if (response.isBase64Encoded) return { statusCode: response.statusCode, headers, encoding: "binary", body: Buffer.from(response.body, "base64") };
  return { statusCode: response.statusCode, headers, encoding: "text", body: Buffer.from(response.body ?? "", "utf8") };
}

/** replayOf is a kept answer as the route's response again, marked Idempotent-Replayed; the chain adds what it adds to every answer. */
function replayOf(answer: StoredAnswer): HttpResponse {
  const headers = { ...answer.headers, [REPLAYED_HEADER]: "true" };
  return answer.encoding === "binary"
    ? { statusCode: answer.statusCode, headers, body: answer.body.toString("base64"), isBase64Encoded: true }
    : { statusCode: answer.statusCode, headers, body: answer.body.toString("utf8") };
}

/** statusOf is the status an error thrown by the route becomes (the one table). */
const statusOf = (error: unknown) => (isSignetError(error) ? errorTable[error.code].status : 500);

/**
 * idempotent wraps a route's work so that a request with an Idempotency-Key runs it at most once
 * per key of a caller within 24 hours (functions/domain/shared/idempotency.ts): the first claims
 * the key, runs, and keeps its answer (successes and the 4xx a retry would get again); a retry of
 * the same request gets that answer byte for byte, another request 422, a retry while the first
 * runs 409. The claim holds for the time the run may take: the function's time left, at most the
 * route's time-out, so a run that died (a Lambda time-out) frees the key. Without the header the
 * work runs as it always did.
 */
export function idempotent(work: Work, deps: IdempotencyDeps, route: { streaming?: boolean }): Work {
  const routeTimeoutMs = (route.streaming === true ? STREAMING_TIMEOUT_SECONDS : INTEGRATION_TIMEOUT_SECONDS) * 1000;
  return async (event, context) => {
    const anchor = runAnchorOf(event);
    const key = anchor ?? idempotencyKeyOf(event);
    if (key === undefined || (anchor !== undefined && !deps.store)) return work(event, context);
    const { store } = deps;
    if (!store) throw new SignetError("SERVICE_UNAVAILABLE", "Idempotency keys are not available on this server; send the request without Idempotency-Key.");
    const { principal, rawBody } = partsOf(event);
    const scope = idempotencyScope(callerOf(principal).keyId, key);
    const query =
      event.multiValueQueryStringParameters ??
      Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).map(([name, value]) => [name, [value ?? ""]]));
    const fingerprint = requestFingerprint({ method: event.httpMethod, path: event.path, query, body: rawBody ?? Buffer.alloc(0) });
    const now = deps.now();
    const lockToken = randomUUID();
    const expiresAt = now + IDEMPOTENCY_TTL_SECONDS * 1000;
    const lockExpiresAt = now + Math.min(context.getRemainingTimeInMillis(), routeTimeoutMs) + LOCK_MARGIN_MS;
    // A job's run holds its job (the job store's lease): an earlier run's claim still "running" is
    // that of a worker that died, taken over at once (every lock ends within a route's time-out of
    // its start), while a finished run's answer is replayed.
    const claimNow = anchor === undefined ? now : now + routeTimeoutMs + LOCK_MARGIN_MS;
    const claimed = await store.claim({ scope, fingerprint, lockToken, now: claimNow, lockExpiresAt, expiresAt });
    if (claimed !== "claimed") return replayOf(existingAnswer(claimed, fingerprint, now));
    const keep = async (answer: StoredAnswer | undefined) => {
      try {
        if (answer && isReplayable(answer.statusCode)) await store.complete(scope, lockToken, answer, expiresAt);
        else await store.release(scope, lockToken);
      } catch (error) {
        // The work is done and its answer goes out; the key is freed if the store lets us, so a retry runs again.
        logger.warn("idempotency record not updated", { error: error as Error });
        await store.release(scope, lockToken).catch(() => undefined);
      }
    };
    let response: HttpResponse;
    try {
      response = await work(event, context);
    } catch (error) {
      // A 4xx the same request always gets is kept as the chain answers it (errorMapping, the same table); the rest is released.
      await keep(isReplayable(statusOf(error)) ? answerOf(toErrorResponse(error, requestIdOf(event))) : undefined);
      throw error;
    }
    await keep(answerOf(response));
    return response;
  };
}
