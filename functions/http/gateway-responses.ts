import type { ErrorCode } from "#domain/shared/errors.ts";
import { denialMessages } from "#domain/keys/key-service.ts";
import { formatBytes } from "#domain/shared/sizes.ts";
import { DEFAULT_DOCUMENT_BYTES, GATEWAY_REQUEST_BYTES, INLINE_DOCUMENT_BYTES, LAMBDA_INVOKE_BYTES, MULTIPART_FILE_BYTES } from "#http/aws-limits.ts";

/** GatewayAnswer is an error API Gateway itself produces before a function runs. */
export interface GatewayAnswer {
  code: ErrorCode;
  message: string;
  /** The Retry-After of the answer, for the ones worth retrying soon. */
  retryAfterSeconds?: number;
}

/**
 * gatewayAnswers are the errors the gateway (or the local server standing in for it) gives on
 * its own, in Signet's error layout. The stack turns them into API Gateway gateway responses;
 * the local server answers them directly, so both speak the same words.
 */
export const gatewayAnswers = {
  /** No Authorization header at all (the TOKEN authorizer is not even called). */
  missingKey: {
    code: "AUTHENTICATION_ERROR",
    message: denialMessages.missing,
  },
  /** The authorizer crashed or timed out (its dependencies are down). */
  authorizerFailure: {
    code: "SERVICE_UNAVAILABLE",
    message: "API keys cannot be checked right now; retry in a moment.",
  },
  /** The stage's or a method's request-rate limit (API Gateway throttling). */
  throttled: { code: "RATE_LIMIT_ERROR", message: "Too many requests; slow down and retry.", retryAfterSeconds: 1 },
  /**
   * The function could not be invoked: Lambda throttled it (its reserved concurrency or the
   * account's is used up; the gateway calls it INTEGRATION_FAILURE and would answer 500), or
   * Lambda itself failed. Not the caller's fault, and gone in seconds: 503 with Retry-After.
   */
  serviceBusy: {
    code: "SERVICE_UNAVAILABLE",
    message: "The service is busy right now (every instance of this function is in use); retry in a few seconds.",
    retryAfterSeconds: 2,
  },
  // The real limits on AWS (functions/http/aws-limits.ts); uploads are the way past them.
  tooLarge: {
    code: "PAYLOAD_TOO_LARGE",
    message:
      `The request is larger than the ${formatBytes(GATEWAY_REQUEST_BYTES)} API Gateway accepts, and a function receives at most ${formatBytes(LAMBDA_INVOKE_BYTES)} ` +
      `(base64 included: about ${formatBytes(INLINE_DOCUMENT_BYTES)} of document as base64 JSON, ${formatBytes(MULTIPART_FILE_BYTES)} as a multipart file). ` +
      `Upload larger documents, up to ${formatBytes(DEFAULT_DOCUMENT_BYTES)}, with POST /v1/uploads and send the reference (document.upload, or convert ?upload=).`,
  },
  timeout: { code: "CONVERSION_TIMEOUT", message: "The request took longer than the gateway allows; retry, or send a smaller document." },
} as const satisfies Record<string, GatewayAnswer>;
