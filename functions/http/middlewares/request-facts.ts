import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { logger } from "#adapters/powertools-logger.ts";
import type { RouteContract } from "#http/contract.ts";
import type { PipelineMiddleware, PipelineRequest } from "#http/middlewares/chain.ts";

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
export function requestIdOf(event: APIGatewayProxyEvent): string {
  return clientRequestId(event) ?? event.requestContext?.requestId ?? "unknown";
}

/**
 * requestFacts gives each request its id (correlation_id and route on every log line, X-Request-Id
 * on the answer) and writes the one "request" line with status and duration. The Lambda context
 * and the reset of these keys after each invocation are Powertools' injectLambdaContext's work.
 */
export function requestFacts(contract: Pick<RouteContract, "method" | "path">): PipelineMiddleware {
  const finish = (request: PipelineRequest): void => {
    const { event, response } = request;
    if (response) response.headers = { ...response.headers, "X-Request-Id": requestIdOf(event) };
    const startedAt = request.internal.startedAt ?? Date.now();
    logger.info("request", { method: event.httpMethod, path: event.path, status: response?.statusCode, ms: Date.now() - startedAt });
  };
  return {
    name: "requestFacts",
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
