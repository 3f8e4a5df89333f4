import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, Context } from "aws-lambda";
import type { HttpResponse } from "#http/responses.ts";
import type { RouteName } from "#http/routes.ts";
import { isStreamingHandler, type StreamingHandler } from "#http/streaming.ts";
import { invokeBuffered } from "#http/buffered-invoke.ts";
import { handler as annotate } from "#functions/annotate.ts";
import { handler as annotateFields } from "#functions/annotate-fields.ts";
import { handler as authRegister } from "#functions/auth-register.ts";
import { handler as authVerify } from "#functions/auth-verify.ts";
import { handler as authorizer } from "#functions/authorizer.ts";
import { handler as convert } from "#functions/convert.ts";
import { handler as docs } from "#functions/docs.ts";
import { handler as fallback } from "#functions/fallback.ts";
import { handler as health } from "#functions/health.ts";
import { handler as info } from "#functions/info.ts";
import { handler as job } from "#functions/job.ts";
import { handler as jobRedeliver } from "#functions/job-redeliver.ts";
import { handler as keysList } from "#functions/keys-list.ts";
import { handler as webhooksSecret } from "#functions/webhooks-secret.ts";
import { handler as webhooksSecretRotate } from "#functions/webhooks-secret-rotate.ts";
import { handler as keysRevoke } from "#functions/keys-revoke.ts";
import { handler as keysRevokeLink } from "#functions/keys-revoke-link.ts";
import { handler as openapi } from "#functions/openapi.ts";
import { handler as sign } from "#functions/sign.ts";
import { handler as timestamp } from "#functions/timestamp.ts";
import { handler as uploads } from "#functions/uploads.ts";
import { handler as verify } from "#functions/verify.ts";
import { handler as verifyCrl } from "#functions/verify-crl.ts";
import { handler as verifyKey } from "#functions/verify-key.ts";

/** ProxyHandler is a Lambda entry behind the REST API. */
export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;

/** AuthorizerResult is the part of a Lambda authorizer's answer the local server reads. */
export interface AuthorizerResult {
  principalId: string;
  policyDocument: { Statement: Array<{ Effect: string }> };
  context?: Record<string, string | number | boolean | null | undefined>;
}

/** AuthorizerHandler is the TOKEN authorizer entry. */
export type AuthorizerHandler = (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<AuthorizerResult>;

/** exported maps each route name (functions/<name>.ts) to the handler the Lambda exports; a route without one does not compile. */
const exported = {
  info,
  health,
  openapi,
  docs,
  "auth-register": authRegister,
  "auth-verify": authVerify,
  "keys-list": keysList,
  "keys-revoke": keysRevoke,
  "keys-revoke-link": keysRevokeLink,
  "webhooks-secret": webhooksSecret,
  "webhooks-secret-rotate": webhooksSecretRotate,
  sign,
  timestamp,
  annotate,
  "annotate-fields": annotateFields,
  convert,
  verify,
  "verify-key": verifyKey,
  "verify-crl": verifyCrl,
  uploads,
  job,
  "job-redeliver": jobRedeliver,
} satisfies Record<RouteName, unknown>;

/**
 * streamingHandlers are the streamified entries (sign, annotate, convert), which the
 * local server invokes with a stream decoding the wire format onto the HTTP response.
 */
export const streamingHandlers = Object.fromEntries(Object.entries(exported).filter(([, handler]) => isStreamingHandler(handler))) as Partial<
  Record<RouteName, StreamingHandler<APIGatewayProxyEvent, Context>>
>;

/**
 * entryHandlers maps each route name to a buffered call of its Lambda handler: streaming entries
 * run their real streaming path and are reassembled from the wire output (tests, events/).
 */
export const entryHandlers = Object.fromEntries(
  Object.entries(exported).map(([name, handler]) => [
    name,
    isStreamingHandler(handler)
      ? (event: APIGatewayProxyEvent, context: Context) => invokeBuffered(handler as StreamingHandler<APIGatewayProxyEvent, Context>, event, context)
      : handler,
  ]),
) as Record<RouteName, ProxyHandler>;

/** fallbackHandler answers what no route claims (404/405, CORS preflight). */
export const fallbackHandler = fallback as unknown as ProxyHandler;

/** authorizerHandler is the API-key authorizer, run before protected routes. */
export const authorizerHandler = authorizer as unknown as AuthorizerHandler;
