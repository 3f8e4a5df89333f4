import { ResponseType, type RestApi } from "aws-cdk-lib/aws-apigateway";
import type { ErrorCode } from "#domain/errors.ts";
import { errorTable, reasonPhrases } from "#http/error-table.ts";
import { gatewayAnswers } from "#http/gateway-responses.ts";

/** GatewayErrorRow is one gateway response: which gateway failure, answered how. */
interface GatewayErrorRow {
  type: ResponseType;
  code: ErrorCode;
  /** A literal message, or a VTL expression that renders a JSON string (quotes included). */
  message: string | { vtl: string };
  /** Status to answer with; the error table's status for the code when omitted. */
  status?: number;
  headers?: Record<string, string>;
}

/**
 * gatewayErrors maps every failure API Gateway answers on its own (before or instead of a
 * function) onto Signet's error layout, with the same words the local server uses
 * (functions/http/gateway-responses.ts).
 */
const gatewayErrors: GatewayErrorRow[] = [
  // No Authorization header: the TOKEN authorizer is not even called. The authorizer throwing
  // "Unauthorized" lands here too; it should answer Deny with a message instead (ACCESS_DENIED).
  { type: ResponseType.UNAUTHORIZED, code: gatewayAnswers.missingKey.code, message: gatewayAnswers.missingKey.message },
  // The authorizer answered Deny; its context.message says why (unknown key, bad checksum, ...).
  { type: ResponseType.ACCESS_DENIED, code: "AUTHENTICATION_ERROR", status: 401, message: { vtl: '"$context.authorizer.message"' } },
  { type: ResponseType.AUTHORIZER_FAILURE, code: gatewayAnswers.authorizerFailure.code, message: gatewayAnswers.authorizerFailure.message },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, code: gatewayAnswers.authorizerFailure.code, message: gatewayAnswers.authorizerFailure.message },
  { type: ResponseType.THROTTLED, code: gatewayAnswers.throttled.code, message: gatewayAnswers.throttled.message, headers: { "Retry-After": "1" } },
  { type: ResponseType.REQUEST_TOO_LARGE, code: gatewayAnswers.tooLarge.code, message: gatewayAnswers.tooLarge.message },
  { type: ResponseType.INTEGRATION_TIMEOUT, code: gatewayAnswers.timeout.code, message: gatewayAnswers.timeout.message },
  // Paths are all caught by /{proxy+} and ANY; these are the backstops.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, code: "NOT_FOUND", message: "There is no such route. See /openapi.json for the API." },
  { type: ResponseType.RESOURCE_NOT_FOUND, code: "NOT_FOUND", message: "There is no such route. See /openapi.json for the API." },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, code: "UNSUPPORTED_MEDIA_TYPE", message: { vtl: "$context.error.messageString" } },
  { type: ResponseType.DEFAULT_4XX, code: "VALIDATION_ERROR", message: { vtl: "$context.error.messageString" } },
  {
    type: ResponseType.DEFAULT_5XX,
    code: "INTERNAL_ERROR",
    message: "Something went wrong on our side. Quote the request id when reporting it.",
  },
];

function template(row: GatewayErrorRow, status: number): string {
  let message: string;
  if (typeof row.message === "string") {
    // VTL would read $ and # as references and directives.
    if (/[$#]/.test(row.message)) throw new Error(`gateway message must not contain $ or #: ${row.message}`);
    message = JSON.stringify(row.message);
  } else {
    message = row.message.vtl;
  }
  const error = reasonPhrases[status] ?? "Error";
  return `{"code":"${row.code}","error":"${error}","message":${message},"requestId":"$context.requestId"}`;
}

/** addGatewayResponses gives the API its error answers in the layout of SPEC 5 (CORS headers included). */
export function addGatewayResponses(api: RestApi, corsOrigin: string): void {
  for (const row of gatewayErrors) {
    const status = row.status ?? errorTable[row.code].status;
    const headers: Record<string, string> = { "Access-Control-Allow-Origin": corsOrigin, ...row.headers };
    api.addGatewayResponse(`Gateway${row.type.responseType}`, {
      type: row.type,
      statusCode: String(status),
      responseHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`])),
      templates: { "application/json": template(row, status) },
    });
  }
}
