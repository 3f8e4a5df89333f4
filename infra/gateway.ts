import { ResponseType, type MethodDeploymentOptions, type RestApi } from "aws-cdk-lib/aws-apigateway";
import type { ErrorCode } from "#domain/shared/errors.ts";
import { answersHead, type RouteContract } from "#http/contract.ts";
import { errorTable, reasonPhrases } from "#http/error-table.ts";
import { gatewayAnswers, type GatewayAnswer } from "#http/gateway-responses.ts";

/** unauthorizedMessage answers a missing or malformed Authorization header on AWS. */
const unauthorizedMessage =
  "Missing or malformed API key: send the header Authorization: Bearer sgn_... with your whole key (sgn_ and 38 letters and digits; get one from /v1/auth/register).";

/** GatewayErrorRow is one gateway response: which gateway failure, answered how. */
interface GatewayErrorRow {
  type: ResponseType;
  code: ErrorCode;
  /** A literal message, or a VTL expression that renders a JSON string (quotes included). */
  message: string | { vtl: string };
  /** Status to answer with; the error table's status for the code when omitted; "gateway" keeps the gateway's own. */
  status?: number | "gateway";
  headers?: Record<string, string>;
}

/** retryable is a row's code, message and Retry-After header from a gateway answer that carries a wait. */
function retryable(answer: GatewayAnswer): Pick<GatewayErrorRow, "code" | "message" | "headers"> {
  return { code: answer.code, message: answer.message, headers: { "Retry-After": String(answer.retryAfterSeconds ?? 1) } };
}

/**
 * gatewayErrors maps every failure API Gateway answers on its own (before or instead of a
 * function) onto Signet's error layout, with the same words the local server uses
 * (functions/http/gateway-responses.ts).
 */
const gatewayErrors: GatewayErrorRow[] = [
  // No Authorization header, or one that fails the authorizer's validation expression
  // (authorizationHeaderPattern): the TOKEN authorizer is not even called. The authorizer throwing
  // "Unauthorized" lands here too; it should answer Deny with a message instead (ACCESS_DENIED).
  // Locally the authorizer sees malformed headers itself and says more precisely what is wrong.
  { type: ResponseType.UNAUTHORIZED, code: gatewayAnswers.missingKey.code, message: unauthorizedMessage },
  // The authorizer answered Deny; its context.message says why (unknown key, bad checksum, ...).
  { type: ResponseType.ACCESS_DENIED, code: "AUTHENTICATION_ERROR", status: 401, message: { vtl: '"$context.authorizer.message"' } },
  { type: ResponseType.AUTHORIZER_FAILURE, code: gatewayAnswers.authorizerFailure.code, message: gatewayAnswers.authorizerFailure.message },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, code: gatewayAnswers.authorizerFailure.code, message: gatewayAnswers.authorizerFailure.message },
  { type: ResponseType.THROTTLED, ...retryable(gatewayAnswers.throttled) },
  // A throttled Lambda (reserved or account concurrency used up) and any other failure to invoke
  // the function: the gateway's default is a bare 500, which tells the client nothing and invites
  // no retry. (A function that ran and crashed answers its own 500 through the pipeline.)
  { type: ResponseType.INTEGRATION_FAILURE, ...retryable(gatewayAnswers.serviceBusy) },
  { type: ResponseType.REQUEST_TOO_LARGE, code: gatewayAnswers.tooLarge.code, message: gatewayAnswers.tooLarge.message },
  { type: ResponseType.INTEGRATION_TIMEOUT, code: gatewayAnswers.timeout.code, message: gatewayAnswers.timeout.message },
  // Paths are all caught by /{proxy+} and ANY; these are the backstops.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, code: "NOT_FOUND", message: "There is no such route. See /openapi.json for the API." },
  { type: ResponseType.RESOURCE_NOT_FOUND, code: "NOT_FOUND", message: "There is no such route. See /openapi.json for the API." },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, code: "UNSUPPORTED_MEDIA_TYPE", message: { vtl: "$context.error.messageString" } },
  // Request validation (none configured today): these really are validation errors.
  { type: ResponseType.BAD_REQUEST_PARAMETERS, code: "VALIDATION_ERROR", message: { vtl: "$context.error.messageString" } },
  { type: ResponseType.BAD_REQUEST_BODY, code: "VALIDATION_ERROR", message: { vtl: "$context.error.messageString" } },
  // Usage-plan quota (none configured today): a rate limit, but no Retry-After, since the quota
  // period (day, week, month) is not known here.
  { type: ResponseType.QUOTA_EXCEEDED, code: "RATE_LIMIT_ERROR", message: { vtl: "$context.error.messageString" } },
  // The gateway's 403s: a WAF rule (if an operator attaches a web ACL), API-key or IAM signature
  // checks (not used by Signet). They keep their 403 with Signet's REQUEST_REJECTED code; the
  // gateway's message says why.
  ...[ResponseType.WAF_FILTERED, ResponseType.INVALID_API_KEY, ResponseType.EXPIRED_TOKEN, ResponseType.INVALID_SIGNATURE].map(
    (type): GatewayErrorRow => ({ type, code: "REQUEST_REJECTED", status: 403, message: { vtl: "$context.error.messageString" } }),
  ),
  // Whatever 4xx is left (types AWS may add): keep the gateway's own status, so a 403 or 429 is not
  // turned into a 400; the code is the "refused" one of the 403s above, the message the gateway's.
  { type: ResponseType.DEFAULT_4XX, code: "REQUEST_REJECTED", status: "gateway", message: { vtl: "$context.error.messageString" } },
  {
    type: ResponseType.DEFAULT_5XX,
    code: "INTERNAL_ERROR",
    message: "Something went wrong on our side. Quote the request id when reporting it.",
  },
];

/** phrases adds the 403 the gateway answers with to the error table's reason phrases. */
const phrases: Record<number, string> = { ...reasonPhrases, 403: "Forbidden" };

/**
 * classPhrase stands in for the reason phrase when the status is the gateway's own: templates of
 * gateway responses only substitute variables and none holds the status, so the body names the
 * RFC 9110 class ("Client Error 4xx").
 */
const classPhrase = "Client Error";

function template(row: GatewayErrorRow, status: number | "gateway"): string {
  let message: string;
  if (typeof row.message === "string") {
    // VTL would read $ and # as references and directives.
    if (/[$#]/.test(row.message)) throw new Error(`gateway message must not contain $ or #: ${row.message}`);
    message = JSON.stringify(row.message);
  } else {
    message = row.message.vtl;
  }
  const error = status === "gateway" ? classPhrase : (phrases[status] ?? "Error");
  return `{"code":"${row.code}","error":"${error}","message":${message},"requestId":"$context.requestId"}`;
}

/** addGatewayResponses gives the API its error answers in the layout of docs/errors.md (CORS headers included). */
export function addGatewayResponses(api: RestApi, corsOrigin: string): void {
  for (const row of gatewayErrors) {
    const status = row.status ?? errorTable[row.code].status;
    const headers: Record<string, string> = { "Access-Control-Allow-Origin": corsOrigin, ...row.headers };
    api.addGatewayResponse(`Gateway${row.type.responseType}`, {
      type: row.type,
      ...(status === "gateway" ? {} : { statusCode: String(status) }),
      responseHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`])),
      templates: { "application/json": template(row, status) },
    });
  }
}

/**
 * routeMethods are the API Gateway methods a route's function answers: its own, plus HEAD on a
 * GET that changes nothing. HEAD on a GET that changes state (register, verify, the revocation
 * link) is left to the ANY fallback (405), since the gateway would run the GET and drop the body.
 */
export function routeMethods(route: Pick<RouteContract, "method" | "changesState">): string[] {
  return answersHead(route) ? [route.method, "HEAD"] : [route.method];
}

/**
 * tightThrottle is the stage's method settings for a tighter limit on one route: every method on
 * its resource (the route's, HEAD where it answers one, and the fallback's ANY), not only the
 * route's own method, so no second method reaches the same resource at the stage's wider limit.
 */
export function tightThrottle(
  route: Pick<RouteContract, "method" | "path" | "changesState">,
  limit: Pick<MethodDeploymentOptions, "throttlingRateLimit" | "throttlingBurstLimit">,
): Record<string, MethodDeploymentOptions> {
  return Object.fromEntries([...routeMethods(route), "ANY"].map((method) => [`${route.path}/${method}`, limit]));
}
