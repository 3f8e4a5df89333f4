import { randomUUID } from "node:crypto";
import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import middy, { type MiddlewareObj, type Request } from "@middy/core";
import { executionModeStreamifyResponse } from "@middy/core/StreamifyResponse";
import httpCors from "@middy/http-cors";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import httpSecurityHeaders from "@middy/http-security-headers";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import type * as z from "zod";
import { logger } from "#adapters/powertools-logger.ts";
import { SignetError, isSignetError, type ErrorCode, type ErrorDetail } from "#domain/shared/errors.ts";
import type { RouteContract } from "#http/contract.ts";
import { errorTable, nextStepHints, reasonPhrases } from "#http/error-table.ts";
import { isJsonContentType, parseJsonBody } from "#http/json-body.ts";
import { rawBodyOf } from "#http/raw-body.ts";
import { json, type HttpResponse } from "#http/responses.ts";
import { formatBytes } from "#domain/shared/sizes.ts";
import { ensureStreamingRuntime, toStreamBody } from "#http/streaming.ts";

/** Principal is the caller an API key identified (set by the authorizer). */
export interface Principal {
  keyId: string;
  email: string;
}

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
  event: APIGatewayProxyEvent;
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** Handler is a route's own logic, called after parsing and validation. */
export type RouteHandler<Q extends z.ZodType, B extends z.ZodType> = (request: HttpRequest<Output<Q>, Output<B>>) => Promise<HttpResponse>;

// Lambda refuses synchronous responses above 6 MB (the payload includes headers and the envelope).
const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024 - 32 * 1024;

/** errorResponse builds the SPEC 5 error body for a code. */
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

/** zodDetails turns validation issues into SPEC 5 details with dotted member paths. */
function zodDetails(error: z.ZodError, prefix = ""): ErrorDetail[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join(".");
    const field = [prefix, path].filter(Boolean).join(".") || prefix || "body";
    if (issue.code === "unrecognized_keys") {
      return { field, issue: `unknown member(s): ${issue.keys.join(", ")}` };
    }
    return { field, issue: issue.message };
  });
}

function decodeBody(event: APIGatewayProxyEvent): Buffer {
  const attached = rawBodyOf(event); // the local server's bytes: no base64 round trip
  if (attached) return attached;
  if (event.body === null || event.body === undefined) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, "base64") : Buffer.from(event.body, "utf8");
}

// A client's own X-Request-Id is kept (and echoed) when it is safe to log: at most 128 of [A-Za-z0-9._-].
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** clientRequestId is the caller's X-Request-Id header when valid, else undefined (a new id is made). */
function clientRequestId(event: APIGatewayProxyEvent): string | undefined {
  const entry = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === "x-request-id");
  return entry?.[1] && CLIENT_REQUEST_ID.test(entry[1]) ? entry[1] : undefined;
}

/**
 * requestIdOf is the request's id: the caller's X-Request-Id when valid, else API Gateway's
 * request id (requestFacts fills one in for an event that lacks it). It is the logs' correlation_id.
 */
function requestIdOf(event: APIGatewayProxyEvent): string {
  return clientRequestId(event) ?? event.requestContext?.requestId ?? "unknown";
}

type PipelineRequest = Request<APIGatewayProxyEvent, HttpResponse, Error, Context, { startedAt?: number }>;

/**
 * requestFacts gives each request its id (correlation_id and route on every log line, X-Request-Id
 * on the answer) and writes the one "request" line with status and duration. The Lambda context
 * and the reset of these keys after each invocation are Powertools' injectLambdaContext's work.
 */
function requestFacts(contract: RouteContract): MiddlewareObj<APIGatewayProxyEvent, HttpResponse, Error, Context, { startedAt?: number }> {
  const finish = (request: PipelineRequest): void => {
    const { event, response } = request;
    if (response) response.headers = { ...response.headers, "X-Request-Id": requestIdOf(event) };
    const startedAt = request.internal.startedAt ?? Date.now();
    logger.info("request", { method: event.httpMethod, path: event.path, status: response?.statusCode, ms: Date.now() - startedAt });
  };
  return {
    before: (request) => {
      const { event } = request;
      // An event without API Gateway's id (a direct invoke) gets one, so the id is the event's.
      if (!event.requestContext?.requestId) event.requestContext = { ...event.requestContext, requestId: randomUUID() };
      request.internal.startedAt = Date.now();
      logger.setCorrelationId(requestIdOf(event));
      logger.appendKeys({ route: `${contract.method} ${contract.path}` });
    },
    after: finish,
    onError: finish,
  };
}

function parseQuery<Q extends z.ZodType>(schema: Q | undefined, event: APIGatewayProxyEvent): unknown {
  // API Gateway keeps only the last value in queryStringParameters: a repeated parameter
  // (?to=xyz&to=docx) would silently win last, so it is refused.
  const repeated = Object.entries(event.multiValueQueryStringParameters ?? {}).filter(([, values]) => (values?.length ?? 0) > 1);
  if (repeated.length > 0) {
    throw new SignetError("VALIDATION_ERROR", `Send each query parameter once; ${repeated.map(([name]) => `"${name}"`).join(", ")} appeared more than once.`, {
      details: repeated.map(([name, values]) => ({ field: `query.${name}`, issue: `given ${values!.length} times; send it once` })),
    });
  }
  const raw = event.queryStringParameters ?? {};
  if (!schema) {
    const names = Object.keys(raw);
    if (names.length > 0) {
      throw new SignetError("VALIDATION_ERROR", "This endpoint takes no query parameters.", {
        details: names.map((name) => ({ field: `query.${name}`, issue: "unknown parameter" })),
      });
    }
    return undefined;
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    // A parameter that is absent is "required", not zod's "expected string, received undefined".
    const missing = (issue: z.core.$ZodIssue) => issue.path.length === 1 && !Object.hasOwn(raw, String(issue.path[0]));
    throw new SignetError("VALIDATION_ERROR", "A query parameter is missing or invalid; see details.", {
      details: zodDetails(result.error, "query").map((detail, index) => (missing(result.error.issues[index]!) ? { ...detail, issue: "required" } : detail)),
    });
  }
  return result.data;
}

function parseParams(contract: RouteContract, event: APIGatewayProxyEvent): Record<string, string> {
  if (!contract.params) return {};
  const result = contract.params.safeParse(event.pathParameters ?? {});
  if (!result.success) {
    throw new SignetError("VALIDATION_ERROR", "A path parameter is invalid; see details.", { details: zodDetails(result.error, "path") });
  }
  return result.data as Record<string, string>;
}

function parseBody<B extends z.ZodType>(
  contract: RouteContract<z.ZodType, B>,
  headers: Record<string, string>,
  rawBody: Buffer,
  maxJsonDepth: number,
): unknown {
  if (contract.body.kind !== "json") return undefined;
  if (!isJsonContentType(headers["content-type"])) {
    throw new SignetError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Send the body as JSON with "Content-Type: application/json" (got ${headers["content-type"] ? `"${headers["content-type"]}"` : "none"}).`,
    );
  }
  const value = parseJsonBody(rawBody, maxJsonDepth);
  const result = contract.body.schema.safeParse(value);
  if (!result.success) {
    throw new SignetError("VALIDATION_ERROR", "The request body does not match the schema; see details.", {
      details: zodDetails(result.error),
    });
  }
  return result.data;
}

function principalOf(event: APIGatewayProxyEvent): Principal | undefined {
  const context = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  if (!context || typeof context.keyId !== "string") return undefined;
  return { keyId: context.keyId, email: typeof context.email === "string" ? context.email : "" };
}

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
}

/**
 * httpHandler wraps a route's logic in the one middleware chain: request id and log context,
 * header normalisation, the per-key request limit (authorised routes), size cap, JSON parsing,
 * schema validation, the error table, response size guard, security headers and CORS.
 *
 * The per-key limit is counted here, in every authorised function, not in the authorizer: on AWS
 * the gateway caches the authorizer's answer (60 s), so most requests never reach it.
 */
export function httpHandler<Q extends z.ZodType, B extends z.ZodType>(contract: RouteContract<Q, B>, handler: RouteHandler<Q, B>, options: HandlerOptions) {
  const keyRate = contract.auth ? options.keyRate : undefined;
  const { settings } = options;

  // --- streaming (issue 15, functions/http/streaming.ts): no 6 MB cap, binary bodies as raw bytes ---
  const streaming = contract.streaming === true;
  if (streaming) ensureStreamingRuntime(); // Middy's streamifyResponse mode calls awslambda.streamifyResponse
  return (
    middy<APIGatewayProxyEvent, HttpResponse, Error, Context>(streaming ? { executionMode: executionModeStreamifyResponse } : {})
      // Runs last after the handler: a streamed binary answer goes out as raw bytes, not base64.
      // With its Content-Length; on AWS refused before the first byte if the time left cannot write it.
      .use({
        after: (request) => {
          if (!streaming || !request.response) return;
          const remainingMs = settings.runtime === "aws" ? request.context.getRemainingTimeInMillis() : undefined;
          request.response = toStreamBody(request.response, remainingMs === undefined ? {} : { remainingMs });
        },
      })
      // --- end streaming ---
      // Lambda context (function name, request id, cold start) on every log line; keys reset after each invocation.
      .use(injectLambdaContext(logger, { resetKeys: true }))
      .use(
        httpCors({
          origin: settings.corsOrigin,
          headers: "Authorization,Content-Type,X-Request-Id",
          methods: "GET,HEAD,POST,DELETE,OPTIONS",
          exposeHeaders: "X-Request-Id,Retry-After,Content-Disposition,Signet-Input-Rewritten,Signet-Notice",
          maxAge: 600,
          disableBeforePreflightResponse: false,
        }),
      )
      // A route that sends its own policy (the docs page: hash-based) says so in its contract.
      .use(httpSecurityHeaders(contract.contentSecurityPolicy === "handler" ? { contentSecurityPolicy: false } : {}))
      .use(requestFacts(contract))
      .use({
        onError: (request) => {
          const response = toErrorResponse(request.error, requestIdOf(request.event));
          // A streamed error answer carries its Content-Length too (the after step above does not run on errors).
          request.response = streaming ? toStreamBody(response) : response;
        },
      })
      .use(httpHeaderNormalizer())
      .use({
        after: (request) => {
          if (settings.runtime !== "aws") return; // (reading body would build a lazy json() body)
          const body = request.response?.body ?? "";
          if (settings.runtime === "aws" && !streaming && body.length > LAMBDA_RESPONSE_LIMIT) {
            throw new SignetError(
              "PAYLOAD_TOO_LARGE",
              `The result is ${formatBytes(body.length)} encoded, over the 6 MB a Lambda response may carry; split the document or use the local server.`,
            );
          }
        },
      })
      .handler(async (event) => {
        const principal = principalOf(event);
        // Counted before the body is even parsed: a refused request costs one table write.
        if (keyRate && principal) await keyRate(principal.keyId);
        const rawBody = decodeBody(event);
        if (rawBody.length > settings.maxRequestBytes) {
          throw new SignetError(
            "PAYLOAD_TOO_LARGE",
            `The request body is ${rawBody.length} bytes; the limit is ${settings.maxRequestBytes}. Upload documents (up to ${formatBytes(settings.maxDocumentBytes)}) with POST /v1/uploads and send the reference instead.`,
          );
        }
        const headers = (event.headers ?? {}) as Record<string, string>;
        const query = parseQuery(contract.query, event);
        const params = parseParams(contract as RouteContract, event);
        const body = parseBody(contract, headers, rawBody, settings.maxJsonDepth);
        return handler({
          query: query as Output<Q>,
          params,
          body: body as Output<B>,
          rawBody,
          headers,
          requestId: requestIdOf(event),
          sourceIp: event.requestContext?.identity?.sourceIp ?? "",
          ...(principal ? { principal } : {}),
          event,
        });
      })
  );
}
