import type { APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, Context } from "aws-lambda";
import type { HttpResponse } from "#http/responses.ts";
import type { RouteName } from "#http/routes.ts";
import { isStreamingHandler, type StreamingHandler } from "#http/streaming.ts";
import { invokeBuffered } from "#http/buffered-invoke.ts";
import { makeAnnotateHandler } from "#functions/annotate.ts";
import { makeAnnotateFieldsHandler } from "#functions/annotate-fields.ts";
import { makeRegisterHandler } from "#functions/auth-register.ts";
import { makeVerifyHandler } from "#functions/auth-verify.ts";
import { createAuthorizer } from "#functions/authorizer.ts";
import { makeConvertHandler } from "#functions/convert.ts";
import { makeDocsHandler } from "#functions/docs.ts";
import { makeFallbackHandler } from "#functions/fallback.ts";
import { makeHealthHandler } from "#functions/health.ts";
import { makeInfoHandler } from "#functions/info.ts";
import { makeJobHandler } from "#functions/job.ts";
import { makeJobRedeliverHandler } from "#functions/job-redeliver.ts";
import { makeListKeysHandler } from "#functions/keys-list.ts";
import { makeWebhookSecretHandler } from "#functions/webhooks-secret.ts";
import { makeRotateWebhookSecretHandler } from "#functions/webhooks-secret-rotate.ts";
import { makeRevokeKeyHandler } from "#functions/keys-revoke.ts";
import { makeRevokeLinkHandler } from "#functions/keys-revoke-link.ts";
import { makeOpenapiHandler } from "#functions/openapi.ts";
import { makeSignHandler } from "#functions/sign.ts";
import { makeMergeHandler } from "#functions/merge.ts";
import { makePagesHandler } from "#functions/pages.ts";
import { makeSplitHandler } from "#functions/split.ts";
import { makeStampHandler } from "#functions/stamp.ts";
import { makeMetadataHandler } from "#functions/metadata.ts";
import { makeTimestampHandler } from "#functions/timestamp.ts";
import { makeProtectHandler } from "#functions/protect.ts";
import { makeUnprotectHandler } from "#functions/unprotect.ts";
import { makeUploadsHandler } from "#functions/uploads.ts";
import { makeVerifyHandler as makeVerifyDocumentHandler } from "#functions/verify.ts";
import { makeVerifyCrlHandler } from "#functions/verify-crl.ts";
import { makeVerifyKeyHandler } from "#functions/verify-key.ts";
import type { Container } from "#wiring/container.ts";
import { authorizerDeps } from "#wiring/keys.ts";

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

/** LocalHandlers are a container's Lambda handlers as the local server calls them. */
export interface LocalHandlers {
  /** entry maps each route name to a buffered call of its Lambda handler: streaming entries run their real streaming path and are reassembled from the wire output (tests, events/). */
  entry: Record<RouteName, ProxyHandler>;
  /** streaming are the streamified entries (sign, annotate, convert), invoked with a stream decoding the wire format onto the HTTP response. */
  streaming: Partial<Record<RouteName, StreamingHandler<APIGatewayProxyEvent, Context>>>;
  /** fallback answers what no route claims (404/405, CORS preflight). */
  fallback: ProxyHandler;
  /** authorizer is the API-key authorizer, run before protected routes. */
  authorizer: AuthorizerHandler;
}

/** makers map each route name (functions/<name>.ts) to how its Lambda handler is made; a route without one does not compile. */
const makers = {
  info: makeInfoHandler,
  health: makeHealthHandler,
  openapi: makeOpenapiHandler,
  docs: makeDocsHandler,
  "auth-register": (container: Container) => makeRegisterHandler(container),
  "auth-verify": (container: Container) => makeVerifyHandler(container),
  "keys-list": (container: Container) => makeListKeysHandler(container),
  "keys-revoke": (container: Container) => makeRevokeKeyHandler(container),
  "keys-revoke-link": (container: Container) => makeRevokeLinkHandler(container),
  "webhooks-secret": (container: Container) => makeWebhookSecretHandler(container),
  "webhooks-secret-rotate": (container: Container) => makeRotateWebhookSecretHandler(container),
  sign: makeSignHandler,
  stamp: makeStampHandler,
  metadata: makeMetadataHandler,
  timestamp: makeTimestampHandler,
  protect: makeProtectHandler,
  unprotect: makeUnprotectHandler,
  annotate: makeAnnotateHandler,
  "annotate-fields": makeAnnotateFieldsHandler,
  convert: makeConvertHandler,
  verify: makeVerifyDocumentHandler,
  "verify-key": makeVerifyKeyHandler,
  "verify-crl": makeVerifyCrlHandler,
  uploads: makeUploadsHandler,
  job: (container: Container) => makeJobHandler(container),
  "job-redeliver": (container: Container) => makeJobRedeliverHandler(container),
  merge: makeMergeHandler,
  split: makeSplitHandler,
  pages: makePagesHandler,
} satisfies Record<RouteName, (container: Container) => unknown>;

/** localHandlers makes every route's Lambda handler on one container, as each Lambda makes its own on its process's container. */
export function localHandlers(container: Container): LocalHandlers {
  const made = Object.entries(makers).map(([name, make]) => [name, make(container)] as const);
  return {
    streaming: Object.fromEntries(made.filter(([, handler]) => isStreamingHandler(handler))) as LocalHandlers["streaming"],
    entry: Object.fromEntries(
      made.map(([name, handler]) => [
        name,
        isStreamingHandler(handler)
          ? (event: APIGatewayProxyEvent, context: Context) => invokeBuffered(handler as StreamingHandler<APIGatewayProxyEvent, Context>, event, context)
          : handler,
      ]),
    ) as Record<RouteName, ProxyHandler>,
    fallback: makeFallbackHandler(container) as unknown as ProxyHandler,
    authorizer: createAuthorizer(authorizerDeps(container)) as unknown as AuthorizerHandler,
  };
}
