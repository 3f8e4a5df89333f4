/** errorCodes lists every machine-readable error code Signet answers with (docs/errors.md). */
export const errorCodes = [
  "VALIDATION_ERROR",
  "AUTHENTICATION_ERROR",
  "REQUEST_REJECTED",
  "NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "PAYLOAD_TOO_LARGE",
  "IMAGE_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "INVALID_DOCUMENT",
  "ENCRYPTED_DOCUMENT",
  "WRONG_PASSWORD",
  "WOULD_INVALIDATE_SIGNATURES",
  "FIELD_NOT_FOUND",
  "FIELD_TYPE_MISMATCH",
  "FIELD_READ_ONLY",
  "INVALID_FIELD_VALUE",
  "XFA_FORM",
  "FIELD_ALREADY_SIGNED",
  "FIELD_PLACEMENT",
  "CERTIFICATION_NOT_FIRST",
  "DATA_MISSING",
  "INVALID_IMAGE",
  "MISSING_SUBMIT_EVENT",
  "LEVEL_UNAVAILABLE",
  "INVALID_CODE",
  "CODE_EXPIRED",
  "IDEMPOTENCY_KEY_REUSED",
  "IDEMPOTENCY_KEY_IN_USE",
  "RATE_LIMIT_ERROR",
  "INTERNAL_ERROR",
  "FETCH_FAILED",
  "EMAIL_FAILED",
  "TSA_FAILED",
  "SERVICE_UNAVAILABLE",
  "CONVERSION_TIMEOUT",
  "SYNC_TIMEOUT",
  "REQUEST_TIMEOUT",
  "HEADERS_TOO_LARGE",
  "CONVERSION_FAILED",
] as const;

/** ErrorCode is one of the codes in errorCodes. */
export type ErrorCode = (typeof errorCodes)[number];

/** ErrorDetail names one offending input member and what is wrong with it. */
export interface ErrorDetail {
  field: string;
  issue: string;
}

/**
 * NextStep names the service action that fixes an error (request an upload, convert a .doc, ...).
 * The domain only names it; the HTTP layer words it as an endpoint (functions/http/error-table.ts).
 */
export type NextStep = "convert-doc" | "upload" | "register" | "list-keys" | "revoke-key" | "list-fields";

/** SignetErrorOptions carries the optional parts of a SignetError. */
export interface SignetErrorOptions {
  details?: ErrorDetail[];
  /** Seconds the caller should wait before retrying (sent as Retry-After). */
  retryAfterSeconds?: number;
  /** The action that fixes this error, which the transport names for the caller. */
  next?: NextStep;
  cause?: unknown;
}

/**
 * SignetError is the one error type the domain and the adapters raise on purpose. The code decides
 * the HTTP status (functions/http/error-table.ts); the message is written for the caller and must
 * say what to fix. Anything else thrown becomes a 500 with a generic message.
 */
export class SignetError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  readonly retryAfterSeconds?: number;
  readonly next?: NextStep;

  constructor(code: ErrorCode, message: string, options: SignetErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SignetError";
    this.code = code;
    if (options.details) this.details = options.details;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
    if (options.next) this.next = options.next;
  }
}

/** isSignetError tells a deliberate SignetError from anything else that was thrown. */
export function isSignetError(error: unknown): error is SignetError {
  return error instanceof SignetError;
}
