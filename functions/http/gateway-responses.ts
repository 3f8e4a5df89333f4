import type { ErrorCode } from "#domain/errors.ts";
import { denialMessages } from "#domain/key-service.ts";

/** GatewayAnswer is an error API Gateway itself produces before a function runs. */
export interface GatewayAnswer {
  code: ErrorCode;
  message: string;
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
  throttled: { code: "RATE_LIMIT_ERROR", message: "Too many requests; slow down and retry." },
  tooLarge: { code: "PAYLOAD_TOO_LARGE", message: "The request is larger than the 10 MB the gateway accepts; send large documents by URL." },
  timeout: { code: "CONVERSION_TIMEOUT", message: "The request took longer than the gateway allows; retry, or send a smaller document." },
} as const satisfies Record<string, GatewayAnswer>;
