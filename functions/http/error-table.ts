import type { ErrorCode, NextStep } from "#domain/shared/errors.ts";

/** ErrorRow is how one error code appears over HTTP. */
export interface ErrorRow {
  status: number;
  /** What the code means, for the OpenAPI document. */
  description: string;
}

/** errorTable maps every error code to its HTTP status: the one place where that is decided. */
export const errorTable: Record<ErrorCode, ErrorRow> = {
  VALIDATION_ERROR: { status: 400, description: "The request is malformed: a member is missing, unknown or of the wrong type." },
  AUTHENTICATION_ERROR: { status: 401, description: "The Authorization header is missing, malformed, or holds an unknown key." },
  REQUEST_REJECTED: { status: 403, description: "The gateway refused the request before Signet saw it (a firewall rule of the operator, for example)." },
  NOT_FOUND: {
    status: 404,
    description:
      "No such route; no live key with that id for your address; a revocation link that is unknown, used or expired; or no such upload (unknown, expired, used, or another key's).",
  },
  METHOD_NOT_ALLOWED: { status: 405, description: "The route exists but not for this HTTP method." },
  PAYLOAD_TOO_LARGE: { status: 413, description: "The body, the document, an image or a list is over its size limit." },
  IMAGE_TOO_LARGE: {
    status: 413,
    description:
      "An image inside the document, or an image or signature value, declares more pixels than the limit (SIGNET_MAX_IMAGE_PIXELS); a decoder or LibreOffice would allocate memory for all of them.",
  },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: "The Content-Type does not fit the endpoint." },
  INVALID_DOCUMENT: { status: 422, description: "The document is not a readable PDF or DOCX (or not the kind this endpoint takes)." },
  ENCRYPTED_DOCUMENT: {
    status: 422,
    description:
      "The document is password-protected and no password (or the empty one) opens it, or it is encrypted with something other than a password (a certificate).",
  },
  WOULD_INVALIDATE_SIGNATURES: {
    status: 409,
    description:
      "The PDF holds signatures and the operation would break them (a change their signatures or certification do not permit, or a whole rewrite: protect, unprotect); send dropSignatures: true to remove them and go ahead.",
  },
  WRONG_PASSWORD: { status: 422, description: "The PDF's password (document.password) opens it neither as its user nor as its owner." },
  FIELD_NOT_FOUND: { status: 422, description: "A field id or group matches nothing in the template; or signatureField.name names no field of the PDF." },
  FIELD_TYPE_MISMATCH: { status: 422, description: "A value does not fit the control it targets (a table into inline text, an image into a checkbox)." },
  FIELD_READ_ONLY: { status: 422, description: "A PDF fill gives a value to a read-only field." },
  INVALID_FIELD_VALUE: {
    status: 422,
    description:
      "A PDF fill value does not fit its field: not among a choice's options or a button's states, over the field's maximum length, a line break in a single-line field.",
  },
  XFA_FORM: { status: 422, description: "The PDF is an XFA form: dynamic XFA cannot be filled; a hybrid one needs dropXfa: true." },
  FIELD_ALREADY_SIGNED: { status: 422, description: "The signature field named in signatureField already holds a signature." },
  FIELD_PLACEMENT: {
    status: 422,
    description: "A new signature field's page is not in the document, its rectangle is not inside that page, its name is taken, or the document is certified.",
  },
  CERTIFICATION_NOT_FIRST: {
    status: 422,
    description: "certify was asked of a document that already holds a signature: a certification must be the first signature.",
  },
  DATA_MISSING: { status: 422, description: "A {{tag}} of the template has no value in the annotate request's data." },
  INVALID_IMAGE: {
    status: 422,
    description: "An image value is not a PNG, JPEG, GIF, WebP or SVG data URI or URL, cannot be decoded, or is an SVG Signet refuses (a DTD or entities).",
  },
  LEVEL_UNAVAILABLE: {
    status: 422,
    description:
      "The requested signature level cannot be produced: B-T and above need a timestamp authority (SIGNET_TSA_URL); B-LT and B-LTA need complete certificate chains that name their revocation data.",
  },
  MISSING_SUBMIT_EVENT: { status: 422, description: "The audit trail has no event of type submit." },
  INVALID_CODE: {
    status: 422,
    description: "The code does not work for this address (wrong, none pending, dead, or not known to the caller): one answer for every reason.",
  },
  CODE_EXPIRED: { status: 422, description: "The right code, but it has expired or was already used; request a new one." },
  IDEMPOTENCY_KEY_REUSED: {
    status: 422,
    description: "The Idempotency-Key was used in the last 24 hours for a different request (method, path, query or body) of the same API key.",
  },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    description: "The first request with this Idempotency-Key is still running; retry after Retry-After seconds to get its answer.",
  },
  RATE_LIMIT_ERROR: { status: 429, description: "Too many requests; retry after the number of seconds in Retry-After." },
  INTERNAL_ERROR: { status: 500, description: "An unexpected failure; the cause is logged under the request id." },
  FETCH_FAILED: { status: 502, description: "A document or image URL could not be fetched safely." },
  EMAIL_FAILED: { status: 502, description: "The e-mail service refused the message." },
  TSA_FAILED: { status: 502, description: "The configured timestamp authority failed; nothing was signed." },
  SERVICE_UNAVAILABLE: { status: 503, description: "A backing service (database, e-mail, converter) is unreachable; retry later." },
  CONVERSION_TIMEOUT: { status: 504, description: "LibreOffice did not finish within the time limit." },
  SYNC_TIMEOUT: {
    status: 504,
    description: "The work did not finish within the synchronous budget (SIGNET_SYNC_BUDGET_MS); send it again with Prefer: respond-async and read the job.",
  },
  REQUEST_TIMEOUT: {
    status: 408,
    description: "The request's headers or body did not arrive within the request time-out (SIGNET_REQUEST_TIMEOUT_MS on the local server).",
  },
  HEADERS_TOO_LARGE: { status: 431, description: "The request's headers are larger than the server accepts." },
  CONVERSION_FAILED: {
    status: 500,
    description: "LibreOffice crashed or exited with an error on this document, also on a fresh retry; its exit status is logged under the request id.",
  },
};

/** nextStepHints words each domain NextStep as the HTTP call that does it; appended to the message. */
export const nextStepHints: Record<NextStep, string> = {
  "convert-doc": "Convert it with POST /v1/convert?from=doc.",
  upload: "Uploads: POST /v1/uploads.",
  register: "New keys: GET /v1/auth/register?email=...",
  "list-keys": "GET /v1/keys lists the ids of your keys.",
  "revoke-key": "Revoke a key with DELETE /v1/keys/{id}.",
  "list-fields": "POST /v1/annotate/fields lists what the template has.",
};

/** reasonPhrases gives the HTTP reason phrase for each status used above (the `error` member). */
export const reasonPhrases: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};
