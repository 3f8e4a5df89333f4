import type { MiddlewareObj, Request } from "@middy/core";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import type { Principal } from "#http/caller.ts";
import type { HttpResponse } from "#http/responses.ts";

/** RequestParts are what the request middlewares read from the event, for the route's handler. */
export interface RequestParts {
  principal?: Principal;
  /** The body bytes, decoded when API Gateway sent base64 (body-decoding.ts). */
  rawBody?: Buffer;
  /** The validated query (query-validation.ts). */
  query?: unknown;
  /** The validated path parameters (path-validation.ts). */
  params?: Record<string, string>;
  /** The validated JSON body (json-body-validation.ts). */
  body?: unknown;
  /** The callbackUrl of a request asking respond-async, taken out of its body (functions/http/jobs.ts). */
  callbackUrl?: string;
  /** Where callbackUrl came from, for an error's details: body.callbackUrl (default) or query.callbackUrl. */
  callbackField?: string;
  /** When this is a job's run: the epoch ms its invocation ends (the run's budget, functions/http/jobs.ts). */
  jobDeadline?: number;
}

// A symbol, so no member of a gateway event (JSON) can collide with or forge it.
const PARTS: unique symbol = Symbol("signet.requestParts");

/**
 * PipelineEvent is the gateway's event as the chain passes it on, carrying the parts the request
 * middlewares read (as Middy's body parsers leave their result on the event). They sit on the event
 * and not on the context: tests share one context object between calls.
 */
export type PipelineEvent = APIGatewayProxyEvent & { [PARTS]?: RequestParts };

/** PipelineInternal is what the middlewares keep for themselves during one invocation. */
export interface PipelineInternal extends Record<string, unknown> {
  /** When the request arrived (request-facts.ts logs the duration). */
  startedAt?: number;
}

/** PipelineRequest is Middy's request object as the chain's middlewares see it. */
export type PipelineRequest = Request<PipelineEvent, HttpResponse, Error, Context, PipelineInternal>;

/** PipelineMiddleware is one named step of the chain (functions/http/pipeline.ts lists them in order). */
export type PipelineMiddleware = MiddlewareObj<PipelineEvent, HttpResponse, Error, Context, PipelineInternal>;

/** partsOf is the parts of this request so far; a middleware adds what it read. */
export function partsOf(event: PipelineEvent): RequestParts {
  event[PARTS] ??= {};
  return event[PARTS];
}

/** named gives a middleware from a package (Middy's, Powertools') its name in the chain. */
export function named(name: string, middleware: MiddlewareObj<never, never, never, never, never>): PipelineMiddleware {
  return { ...(middleware as PipelineMiddleware), name };
}
