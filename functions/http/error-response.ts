import { logger } from "#adapters/powertools-logger.ts";
import { isSignetError, type ErrorCode, type ErrorDetail } from "#domain/shared/errors.ts";
import { errorTable, nextStepHints, reasonPhrases } from "#http/error-table.ts";
import { json, type HttpResponse } from "#http/responses.ts";

/** errorResponse builds the error body (code, error, message, requestId, details) of a code. */
export function errorResponse(
  code: ErrorCode,
  message: string,
  requestId: string,
  extra: { details?: ErrorDetail[]; retryAfterSeconds?: number; headers?: Record<string, string> } = {},
): HttpResponse {
  const { status } = errorTable[code];
  const headers: Record<string, string> = { ...extra.headers };
  // 0 means "act now" (e.g. ask for a new code); any positive wait rounds up to whole seconds.
  if (extra.retryAfterSeconds !== undefined) headers["Retry-After"] = String(Math.max(0, Math.ceil(extra.retryAfterSeconds)));
  return json(
    status,
    {
      code,
      error: reasonPhrases[status] ?? "Error",
      message,
      requestId,
      ...(extra.details && extra.details.length > 0 ? { details: extra.details } : {}),
    },
    headers,
  );
}

/** toErrorResponse maps anything thrown to a response: SignetErrors by the table, the rest to 500. */
export function toErrorResponse(error: unknown, requestId: string): HttpResponse {
  if (isSignetError(error)) {
    const { status } = errorTable[error.code];
    if (status >= 500) logger.error("request failed", { code: error.code, error: error.cause ?? error.message });
    const message = error.next ? `${error.message} ${nextStepHints[error.next]}` : error.message;
    return errorResponse(error.code, message, requestId, {
      ...(error.details ? { details: error.details } : {}),
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    });
  }
  logger.error("unexpected failure", { error: error as Error });
  return errorResponse("INTERNAL_ERROR", `Something went wrong on our side. Quote request id ${requestId} when reporting it.`, requestId);
}
