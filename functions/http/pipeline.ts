import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy from "@middy/core";
import { executionModeStreamifyResponse } from "@middy/core/StreamifyResponse";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import type * as z from "zod";
import { logger } from "#adapters/powertools-logger.ts";
import type { Principal } from "#http/caller.ts";
import type { RouteContract } from "#http/contract.ts";
import { authContext } from "#http/middlewares/auth-context.ts";
import { bodyDecoding } from "#http/middlewares/body-decoding.ts";
import { named, partsOf, type PipelineEvent, type PipelineInternal, type PipelineMiddleware } from "#http/middlewares/chain.ts";
import { cors } from "#http/middlewares/cors.ts";
import { errorMapping } from "#http/middlewares/error-mapping.ts";
import { jsonBodyValidation } from "#http/middlewares/json-body-validation.ts";
import { keyRateLimit } from "#http/middlewares/key-rate-limit.ts";
import { lambdaResponseLimit } from "#http/middlewares/lambda-response-limit.ts";
import { pathValidation } from "#http/middlewares/path-validation.ts";
import { queryValidation } from "#http/middlewares/query-validation.ts";
import { requestFacts, requestIdOf } from "#http/middlewares/request-facts.ts";
import { requestSizeLimit } from "#http/middlewares/request-size-limit.ts";
import { securityHeaders } from "#http/middlewares/security-headers.ts";
import { streamResponse } from "#http/middlewares/stream-response.ts";
import { type IdempotencyDeps, idempotent } from "#http/idempotency.ts";
import { asyncBody, type JobDeps, respondAsync } from "#http/jobs.ts";
import type { HttpResponse } from "#http/responses.ts";
import { ensureStreamingRuntime } from "#http/streaming.ts";

/** HttpRequest is what a handler receives: validated query and body plus request facts. */
export interface HttpRequest<Q, B> {
  query: Q;
  /** The validated path parameters (`{id}` in the route path), empty for routes without any. */
  params: Record<string, string>;
  /** The validated JSON body, or undefined for routes without a JSON body. */
  body: B;
  /** The raw body bytes (decoded when API Gateway sent base64). */
  rawBody: Buffer;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  requestId: string;
  sourceIp: string;
  principal?: Principal;
  /** When this is a job's run: the epoch ms its invocation ends; work with a time limit of its own may use up to it. */
  jobDeadline?: number;
  event: APIGatewayProxyEvent;
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** Handler is a route's own logic, called after parsing and validation. */
export type RouteHandler<Q extends z.ZodType, B extends z.ZodType> = (request: HttpRequest<Output<Q>, Output<B>>) => Promise<HttpResponse>;

/** KeyRateGuard counts one request of a key, or throws RATE_LIMIT_ERROR. */
export type KeyRateGuard = (keyId: string) => Promise<void>;

/** HttpSettings are the settings the chain itself uses (functions/wiring/http.ts reads them from config). */
export interface HttpSettings {
  /** "aws" inside Lambda: the 6 MB response cap applies to buffered answers. */
  runtime: "aws" | "local";
  /** The CORS origin (SIGNET_CORS_ORIGIN). */
  corsOrigin: string;
  maxRequestBytes: number;
  /** Named in the 413 answer's hint (upload documents up to this size). */
  maxDocumentBytes: number;
  maxJsonDepth: number;
}

/** HandlerOptions are what the chain needs from the container: its settings and the per-key limit. */
export interface HandlerOptions {
  /** The chain's settings. */
  settings: HttpSettings;
  /** The per-key request limit of authorised routes (none: no limit). */
  keyRate?: KeyRateGuard | undefined;
  /** The idempotency store and clock of routes whose contract says `idempotent` (functions/http/idempotency.ts). */
  idempotency?: IdempotencyDeps | undefined;
  /** The job store and queue of routes whose contract says `async` (functions/http/jobs.ts); none: Prefer: respond-async is not applied. */
  jobs?: JobDeps | undefined;
}

/**
 * middlewaresOf is a route's chain, one named middleware per file of functions/http/middlewares/
 * (Powertools' and Middy's own where they fit). Middy runs the `before` steps top to bottom, then
 * the handler, then the `after` steps bottom to top; `onError` steps also run bottom to top.
 */
export function middlewaresOf(contract: RouteContract, options: HandlerOptions): PipelineMiddleware[] {
  const { settings } = options;
  const streaming = contract.streaming === true;
  const keyRate = contract.auth ? options.keyRate : undefined;
  return [
    // after, last: a streamed answer goes out as raw bytes with its Content-Length (functions/http/streaming.ts).
    ...(streaming ? [streamResponse(settings.runtime)] : []),
    // Lambda context (function name, request id, cold start) on every log line; keys reset after each invocation.
    named("lambdaContext", injectLambdaContext(logger, { resetKeys: true })),
    cors(settings.corsOrigin),
    securityHeaders(contract),
    requestFacts(contract),
    errorMapping({ streaming }),
    named("headerNormalizer", httpHeaderNormalizer()),
    // Lambda refuses buffered answers over 6 MB; streamed ones and the local server have no cap.
    ...(settings.runtime === "aws" && !streaming ? [lambdaResponseLimit()] : []),
    // The request, read in this order: who calls, their key's limit, the body's size, then its validation.
    authContext(),
    ...(keyRate ? [keyRateLimit(keyRate)] : []),
    bodyDecoding(),
    requestSizeLimit(settings),
    queryValidation(contract.query),
    pathValidation(contract.params),
    // respond-async: the callbackUrl member leaves the body before the route's schema sees it.
    ...(contract.async && options.jobs ? [asyncBody()] : []),
    jsonBodyValidation(contract.body, settings.maxJsonDepth),
  ];
}

/** routeHandler hands a route's logic what the middlewares read from the request. */
function routeHandler<Q extends z.ZodType, B extends z.ZodType>(handler: RouteHandler<Q, B>) {
  return async (event: PipelineEvent): Promise<HttpResponse> => {
    const { principal, rawBody, query, params, body, jobDeadline } = partsOf(event);
    return handler({
      query: query as Output<Q>,
      params: params ?? {},
      body: body as Output<B>,
      rawBody: rawBody ?? Buffer.alloc(0),
      headers: (event.headers ?? {}) as Record<string, string>,
      requestId: requestIdOf(event),
      sourceIp: event.requestContext?.identity?.sourceIp ?? "",
      ...(principal ? { principal } : {}),
      ...(jobDeadline === undefined ? {} : { jobDeadline }),
      event,
    });
  };
}

/**
 * httpHandler wraps a route's logic in the one middleware chain (middlewaresOf); a streaming route
 * runs in Middy's streamifyResponse mode, which calls awslambda.streamifyResponse.
 */
export function httpHandler<Q extends z.ZodType, B extends z.ZodType>(contract: RouteContract<Q, B>, handler: RouteHandler<Q, B>, options: HandlerOptions) {
  const streaming = contract.streaming === true;
  if (streaming) ensureStreamingRuntime();
  const route = routeHandler(handler);
  // Prefer: respond-async: a job (202) instead of the answer; a job's run and every other request reach the handler.
  const work = contract.async === true && options.jobs ? respondAsync(route, options.jobs, contract.name) : route;
  // Idempotency-Key: inside the chain, after the request is read and checked, so a replayed answer gets every `after` step too.
  const idempotency = contract.idempotent === true ? (options.idempotency ?? { store: undefined, now: Date.now }) : undefined;
  return middy<PipelineEvent, HttpResponse, Error, Context, PipelineInternal>(streaming ? { executionMode: executionModeStreamifyResponse } : {})
    .use(middlewaresOf(contract as RouteContract, options))
    .handler(idempotency ? idempotent(work, idempotency, contract) : work);
}
