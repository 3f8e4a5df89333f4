import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context } from "aws-lambda";
import { config } from "#config";
import { logger } from "#adapters/powertools-logger.ts";
import { gatewayAnswers, type GatewayAnswer } from "#http/gateway-responses.ts";
import { errorResponse } from "#http/pipeline.ts";
import type { HttpResponse } from "#http/responses.ts";
import { routes } from "#http/routes.ts";
import { toProxyEvent } from "#local/api-gateway-event.ts";
import { authorizerHandler, entryHandlers, fallbackHandler, streamingHandlers, type ProxyHandler } from "#local/handlers.ts";
import { GatewayStream } from "#local/response-stream.ts";
import { formatBytes } from "#domain/sizes.ts";

/** LocalServer is a running local API. */
export interface LocalServer {
  url: string;
  port: number;
  /** Stops accepting connections and waits for requests under way to finish. */
  close(): Promise<void>;
}

function lambdaContext(name: string, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `signet-${name}`,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:signet-${name}`,
    memoryLimitInMB: "3008",
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/signet-${name}`,
    logStreamName: "local",
    getRemainingTimeInMillis: () => 900_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too-large"> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        resolve("too-large");
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

function send(res: ServerResponse, response: HttpResponse): void {
  const body = response.isBase64Encoded ? Buffer.from(response.body, "base64") : Buffer.from(response.body ?? "", "utf8");
  const headers: Record<string, string | number | boolean> = { ...(response.headers ?? {}) };
  for (const [name, values] of Object.entries(response.multiValueHeaders ?? {})) headers[name] = values.join(", ");
  res.writeHead(response.statusCode, { ...headers, "Content-Length": body.length });
  res.end(body);
}

function gatewayError(answer: GatewayAnswer, message = answer.message): HttpResponse {
  return errorResponse(answer.code, message, randomUUID());
}

/**
 * handleRequest plays API Gateway for one request: route lookup, the TOKEN authorizer for
 * protected routes, the proxy event, the function's answer back onto the wire.
 */
async function handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://localhost");
  const route = routes.find((candidate) => candidate.path === url.pathname && candidate.method === req.method);
  const body = await readBody(req, config.limits.maxRequestBytes);
  if (body === "too-large") {
    send(res, gatewayError(gatewayAnswers.tooLarge, `The request body is over the ${formatBytes(config.limits.maxRequestBytes)} limit; upload documents (up to ${formatBytes(config.limits.maxDocumentBytes)}) with POST /v1/uploads and send the reference instead.`));
    return;
  }
  const event = toProxyEvent(req, url, body, route?.path ?? "/{proxy+}");
  let handler: ProxyHandler = fallbackHandler;
  if (route) {
    handler = entryHandlers[route.name] ?? fallbackHandler;
    if (route.auth) {
      const header = req.headers.authorization;
      if (!header) return send(res, gatewayError(gatewayAnswers.missingKey));
      try {
        const decision = await authorizerHandler(
          { type: "TOKEN", authorizationToken: header, methodArn: `arn:aws:execute-api:local:000000000000:local/local/${req.method}${url.pathname}` },
          lambdaContext("authorizer", event.requestContext.requestId),
        );
        if (decision.policyDocument.Statement[0]?.Effect !== "Allow") {
          const message = typeof decision.context?.message === "string" ? decision.context.message : "The API key is not valid.";
          return send(res, gatewayError({ code: "AUTHENTICATION_ERROR", message }));
        }
        event.requestContext.authorizer = { ...decision.context, principalId: decision.principalId };
      } catch (error) {
        if (error instanceof Error && error.message === "Unauthorized") {
          return send(res, gatewayError({ code: "AUTHENTICATION_ERROR", message: "The API key is not valid." }));
        }
        logger.error("authorizer failed", { error: error as Error });
        return send(res, gatewayError(gatewayAnswers.authorizerFailure));
      }
    }
  }
  // Streaming routes (issue 15): the handler writes the gateway's wire format, decoded onto res.
  const streaming = route ? streamingHandlers[route.name] : undefined;
  if (streaming) {
    const stream = new GatewayStream(res);
    await streaming(event, stream, lambdaContext(route!.name, event.requestContext.requestId));
    return;
  }
  const response = await handler(event, lambdaContext(route?.name ?? "fallback", event.requestContext.requestId));
  send(res, response);
}

/** startLocalServer serves every route of the catalogue on one port, as the deployed API would. */
export async function startLocalServer(options: { port: number; host?: string }): Promise<LocalServer> {
  const server = http.createServer((req, res) => {
    handleRequest(req, res).catch((error: unknown) => {
      logger.error("local server failure", { error: error as Error });
      if (!res.headersSent) send(res, errorResponse("INTERNAL_ERROR", "Something went wrong on our side.", randomUUID()));
      else res.destroy();
    });
  });
  server.requestTimeout = 0; // conversions may take long; the handlers enforce their own limits
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
