import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Context } from "aws-lambda";
import { logger } from "#adapters/powertools-logger.ts";
import { gatewayAnswers, type GatewayAnswer } from "#http/gateway-responses.ts";
import { reasonPhrases } from "#http/error-table.ts";
import { errorResponse } from "#http/error-response.ts";
import { memoryCollector } from "#local/memory.ts";
import { bodyChunks, bodyPartsOf, type BodyPart, type HttpResponse } from "#http/responses.ts";
import { answersHead, findRoute } from "#http/contract.ts";
import { routes, type RouteName } from "#http/routes.ts";
import { toProxyEvent } from "#local/api-gateway-event.ts";
import { localHandlers, type LocalHandlers, type ProxyHandler } from "#local/handlers.ts";
import { GatewayStream } from "#local/response-stream.ts";
import { VerifyThread } from "#local/verify-thread.ts";
import { formatBytes } from "#domain/shared/sizes.ts";
import { apiHostNames, hostRefusal } from "#local/host-guard.ts";
import type { Container } from "#wiring/container.ts";
import type { Config } from "#config";
import { JobPool } from "#local/job-pool.ts";
import { attachRawBody } from "#http/raw-body.ts";
import { jobRunnerDeps, storeQueue } from "#wiring/jobs.ts";

/** LocalServer is a running local API. */
export interface LocalServer {
  url: string;
  port: number;
  /** What runs async jobs here: "a pool of N workers", or why none runs. */
  jobWorker: string;
  /** Stops accepting connections and waits for requests and jobs under way to finish. */
  close(): Promise<void>;
}

/**
 * startJobPool starts the in-process job worker (local/job-pool.ts), running jobs through the
 * same handlers as requests (verify in its thread); none without a job store, or when
 * SIGNET_JOB_QUEUE_URL hands jobs to SQS.
 */
function startJobPool(container: Container, gateway: Gateway): JobPool | undefined {
  const { config } = container;
  if (config.jobs.queueUrl) return undefined;
  const deps = jobRunnerDeps(container, (route, event, context) => {
    // As for a request: the bytes ride beside the event (verify's thread takes them from there).
    attachRawBody(event, Buffer.from(event.body ?? "", event.isBase64Encoded ? "base64" : "utf8"));
    const name = route as RouteName;
    return (gateway.offLoop[name] ?? gateway.handlers.entry[name] ?? gateway.handlers.fallback)(event, context);
  });
  if (!deps) return undefined;
  const pool = new JobPool(deps, { workers: config.jobs.workers, pollMs: config.jobs.pollMs });
  storeQueue(container).onEnqueue(() => pool.wake());
  pool.start();
  return pool;
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

/** Gateway is what one local server plays API Gateway with: its container's settings and handlers, its authorizer cache and verify thread. */
interface Gateway {
  config: Config;
  handlers: LocalHandlers;
  /** offLoop are the routes whose (Lambda) handler runs in a worker thread on the local server. */
  offLoop: Partial<Record<RouteName, ProxyHandler>>;
  authorizerCache: Map<string, { context: Record<string, unknown>; expires: number }>;
  hosts: ReadonlySet<string>;
}

/**
 * readBody collects the request body. With a Content-Length (the usual case) the bytes go straight
 * into one buffer of that size: one copy, and no list of chunks beside the result.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | "too-large"> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"]);
    if (Number.isSafeInteger(declared) && declared > limit) {
      resolve("too-large");
      req.resume();
      return;
    }
    let target = Number.isSafeInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      if (tooLarge) return;
      if (size + chunk.length > limit) {
        tooLarge = true;
        resolve("too-large");
        req.resume();
        return;
      }
      if (target && size + chunk.length > target.length) {
        // More than declared (Node's parser does not allow it, but never overrun): collect chunks.
        chunks.push(target.subarray(0, size));
        target = undefined;
      }
      if (target) chunk.copy(target, size);
      else chunks.push(chunk);
      size += chunk.length;
    });
    req.on("end", () => {
      if (tooLarge) return;
      resolve(target ? target.subarray(0, size) : Buffer.concat(chunks, size));
    });
    req.on("error", reject);
  });
}

/** write writes one piece, waiting for the socket to drain when its buffer is full; false once the client is gone. */
async function write(res: ServerResponse, chunk: string, encoding: BufferEncoding): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(chunk, encoding)) {
    await new Promise<void>((resolve) => {
      const done = () => {
        res.off("drain", done);
        res.off("close", done);
        resolve();
      };
      res.on("drain", done);
      res.on("close", done);
    });
  }
  return !res.destroyed;
}

// Collects after large requests when the process has gc (npm start passes --expose-gc).
const afterExchange = memoryCollector((globalThis as { gc?: () => void }).gc, () => process.memoryUsage().external);

/** collectAfterLarge reports a request's size (body and answer) to the collector once it is answered. */
function collectAfterLarge(req: IncomingMessage, res: ServerResponse): void {
  const declared = Number(req.headers["content-length"]) || 0;
  const writtenBefore = req.socket.bytesWritten;
  res.once("finish", () => afterExchange(declared + (req.socket.bytesWritten - writtenBefore)));
}

/** sendParts writes a json() answer holding base64Text members piece by piece (bodyChunks). */
async function sendParts(res: ServerResponse, parts: BodyPart[]): Promise<void> {
  for (const chunk of bodyChunks(parts)) if (!(await write(res, chunk, "utf8"))) return;
  res.end();
}

function send(res: ServerResponse, response: HttpResponse): void | Promise<void> {
  const headers: Record<string, string | number | boolean> = { ...(response.headers ?? {}) };
  for (const [name, values] of Object.entries(response.multiValueHeaders ?? {})) headers[name] = values.join(", ");
  const parts = bodyPartsOf(response);
  if (parts) {
    // The big base64 members never exist as one string here: written from their bytes.
    const length = parts.reduce((sum, part) => sum + (typeof part === "string" ? Buffer.byteLength(part, "utf8") : part.length), 0);
    res.writeHead(response.statusCode, { ...headers, "Content-Length": length });
    return sendParts(res, parts);
  }
  if (response.isBase64Encoded) {
    const body = Buffer.from(response.body, "base64");
    res.writeHead(response.statusCode, { ...headers, "Content-Length": body.length });
    res.end(body);
    return;
  }
  // Text goes out as it is: Node encodes it while writing, no UTF-8 copy of the whole body first.
  const body = response.body ?? "";
  res.writeHead(response.statusCode, { ...headers, "Content-Length": Buffer.byteLength(body, "utf8") });
  res.end(body, "utf8");
}

function gatewayError(answer: GatewayAnswer, message = answer.message): HttpResponse {
  return errorResponse(answer.code, message, randomUUID());
}

/**
 * authorizerCache keeps allowing decisions per Authorization header for
 * config.http.authorizerCacheSeconds (default 0: off, so a revoked key is refused at once), as API
 * Gateway caches the TOKEN authorizer's answer (the deployed stack: 60 s). Refusals are not kept. Bounded: the oldest entry goes first.
 */
const AUTHORIZER_CACHE_ENTRIES = 10_000;

function rememberDecision(gateway: Gateway, header: string, context: Record<string, unknown>): void {
  const { authorizerCacheSeconds } = gateway.config.http;
  const cache = gateway.authorizerCache;
  if (authorizerCacheSeconds === 0) return;
  if (cache.size >= AUTHORIZER_CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(header, { context, expires: Date.now() + authorizerCacheSeconds * 1000 });
}

/**
 * handleRequest plays API Gateway for one request: route lookup, the TOKEN authorizer for
 * protected routes, the proxy event, the function's answer back onto the wire.
 */
async function handleRequest(req: IncomingMessage, res: ServerResponse, gateway: Gateway): Promise<void> {
  const { config, handlers } = gateway;
  // DNS rebinding: a page on another site whose name resolves to this machine still sends its own
  // name as Host. Only the names the server is bound under are answered (local/host-guard.ts).
  const refusal = hostRefusal(req, gateway.hosts);
  if (refusal) {
    req.resume();
    send(
      res,
      gatewayError({ code: "REQUEST_REJECTED", message: `Refused: ${refusal}. Use one of those names, or set SIGNET_PUBLIC_URL to the address clients use.` }),
    );
    return;
  }
  const url = new URL(req.url ?? "/", "http://localhost");
  // HEAD is GET without the body (Node leaves the body out of a HEAD answer itself), on GET
  // routes that change nothing; on the others (register, verify, the revocation link) HEAD finds
  // no route and the fallback answers 405, as on API Gateway.
  const asGet = req.method === "HEAD" ? findRoute(routes, "GET", url.pathname) : undefined;
  const found = asGet && answersHead(asGet.route) ? asGet : findRoute(routes, req.method ?? "GET", url.pathname);
  const route = found?.route;
  const body = await readBody(req, config.limits.maxRequestBytes);
  if (body === "too-large") {
    send(
      res,
      gatewayError(
        gatewayAnswers.tooLarge,
        `The request body is over the ${formatBytes(config.limits.maxRequestBytes)} limit; upload documents (up to ${formatBytes(config.limits.maxDocumentBytes)}) with POST /v1/uploads and send the reference instead.`,
      ),
    );
    return;
  }
  const event = toProxyEvent(req, url, body, route?.path ?? "/{proxy+}");
  if (found && Object.keys(found.params).length > 0) event.pathParameters = found.params;
  let handler: ProxyHandler = handlers.fallback;
  if (route) {
    handler = gateway.offLoop[route.name] ?? handlers.entry[route.name] ?? handlers.fallback;
    if (route.auth) {
      const header = req.headers.authorization;
      if (!header) return send(res, gatewayError(gatewayAnswers.missingKey));
      const cached = gateway.authorizerCache.get(header);
      if (cached && cached.expires > Date.now()) {
        event.requestContext.authorizer = { ...cached.context };
      } else {
        try {
          const decision = await handlers.authorizer(
            { type: "TOKEN", authorizationToken: header, methodArn: `arn:aws:execute-api:local:000000000000:local/local/${req.method}${url.pathname}` },
            lambdaContext("authorizer", event.requestContext.requestId),
          );
          if (decision.policyDocument.Statement[0]?.Effect !== "Allow") {
            const message = typeof decision.context?.message === "string" ? decision.context.message : "The API key is not valid.";
            return send(res, gatewayError({ code: "AUTHENTICATION_ERROR", message }));
          }
          event.requestContext.authorizer = { ...decision.context, principalId: decision.principalId };
          rememberDecision(gateway, header, event.requestContext.authorizer);
        } catch (error) {
          if (error instanceof Error && error.message === "Unauthorized") {
            return send(res, gatewayError({ code: "AUTHENTICATION_ERROR", message: "The API key is not valid." }));
          }
          logger.error("authorizer failed", { error: error as Error });
          return send(res, gatewayError(gatewayAnswers.authorizerFailure));
        }
      }
    }
  }
  // Streaming routes: the handler writes the gateway's wire format, decoded onto res.
  const streaming = route ? handlers.streaming[route.name] : undefined;
  if (streaming) {
    const stream = new GatewayStream(res);
    await streaming(event, stream, lambdaContext(route!.name, event.requestContext.requestId));
    return;
  }
  const response = await handler(event, lambdaContext(route?.name ?? "fallback", event.requestContext.requestId));
  await send(res, response);
}

/** clientErrorAnswer is the error a malformed or late request gets, in Signet's JSON layout. */
function clientErrorAnswer(error: NodeJS.ErrnoException, requestTimeoutMs: number): HttpResponse {
  const id = randomUUID();
  switch (error.code) {
    case "ERR_HTTP_REQUEST_TIMEOUT": {
      const seconds = requestTimeoutMs / 1000;
      return errorResponse(
        "REQUEST_TIMEOUT",
        `The request's headers and body did not arrive within ${seconds} s; send the whole request at once (the limit is SIGNET_REQUEST_TIMEOUT_MS).`,
        id,
      );
    }
    case "HPE_HEADER_OVERFLOW":
      return errorResponse(
        "HEADERS_TOO_LARGE",
        `The request headers are larger than the ${formatBytes(http.maxHeaderSize)} the server accepts; send fewer or shorter headers.`,
        id,
      );
    default:
      return errorResponse(
        "VALIDATION_ERROR",
        `The request is not valid HTTP/1.1 (${error.code ?? "parse error"}); check the request line, the headers, Content-Length and Transfer-Encoding.`,
        id,
      );
  }
}

/**
 * onClientError replaces Node's own plain-text 400/408/431 answers with the JSON error layout.
 * Like Node, it answers only when nothing of a response has gone out on the socket yet.
 */
function onClientError(error: NodeJS.ErrnoException, socket: Socket, requestTimeoutMs: number): void {
  const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (error.code !== "ECONNRESET" && socket.writable && !inFlight?.headersSent) {
    const answer = clientErrorAnswer(error, requestTimeoutMs);
    const body = Buffer.from(answer.body, "utf8");
    const head = [
      `HTTP/1.1 ${answer.statusCode} ${reasonPhrases[answer.statusCode] ?? "Error"}`,
      ...Object.entries(answer.headers ?? {}).map(([name, value]) => `${name}: ${String(value)}`),
      `Content-Length: ${body.length}`,
      "Connection: close",
      "",
      "",
    ].join("\r\n");
    socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]));
    // end() flushes the answer; destroy soon after in case the client never reads it.
    setTimeout(() => socket.destroy(), 1000).unref();
    return;
  }
  socket.destroy();
}

/** inFlight is the response of the request whose code is running (AsyncLocalStorage follows callbacks and promises). */
const inFlight = new AsyncLocalStorage<ServerResponse>();

/**
 * answerRequestThatThrew answers 500 to the request whose code threw outside any promise (or ends
 * its connection when part of the answer went out): the handler local/main.ts gives the process's
 * uncaught-exception guard, so one request's error does not end the server.
 */
export function answerRequestThatThrew(): void {
  const res = inFlight.getStore();
  if (!res || res.destroyed) return;
  if (res.headersSent) res.destroy();
  else send(res, errorResponse("INTERNAL_ERROR", "Something went wrong on our side; the failure is logged.", randomUUID()));
}

/** LocalServerOptions say where the local server listens and the container it serves (its settings and instances). */
export interface LocalServerOptions {
  port: number;
  host?: string;
  /** The container every handler is made on; the verify thread makes its own from the same config. */
  container: Container;
  warmVerifyThread?: boolean;
}

/** startLocalServer serves every route of the catalogue on one port, as the deployed API would. */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const { container } = options;
  const { config } = container;
  const timeoutMs = config.http.requestTimeoutMs;
  // verify runs off the event loop: parsing a hostile PDF must not delay other requests.
  const verifyThread = new VerifyThread(config);
  const gateway: Gateway = {
    config,
    handlers: localHandlers(container),
    offLoop: { verify: verifyThread.handle },
    authorizerCache: new Map(),
    hosts: apiHostNames(options.host ?? "127.0.0.1", config.publicUrl),
  };
  const server = http.createServer(
    {
      // Headers and body must arrive within timeoutMs (408 otherwise): a client trickling or
      // withholding its body cannot hold a connection. The handler's own work is not counted
      // (conversions enforce their own limits). Node checks at connectionsCheckingInterval.
      requestTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, Math.floor(timeoutMs / 4))),
    },
    (req, res) => {
      collectAfterLarge(req, res);
      inFlight
        .run(res, () => handleRequest(req, res, gateway))
        .catch((error: unknown) => {
          if (req.destroyed && (error as NodeJS.ErrnoException).code === "ECONNRESET") {
            // The client went away (or the request timed out) before its body arrived: nobody to answer.
            // The path only: the query may hold an e-mail address, a code or a revocation token.
            logger.info("request abandoned before its body arrived", { path: new URL(req.url ?? "/", "http://localhost").pathname });
            return;
          }
          logger.error("local server failure", { error: error as Error });
          if (!res.headersSent) send(res, errorResponse("INTERNAL_ERROR", "Something went wrong on our side.", randomUUID()));
          else res.destroy();
        });
    },
  );
  // An idle keep-alive connection stays open 65 s (Node's default is 5 s), longer than the idle
  // time-outs clients and proxies use (undici 4 s, AWS load balancers 60 s): a server that closes
  // first races a client reusing the connection at that moment, and the request ends in ECONNRESET
  // (seen in tests whose process was busy for a few seconds between two requests).
  server.keepAliveTimeout = 65_000;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => onClientError(error, socket, timeoutMs));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  // The own CRL URL (named in a newly generated local identity) follows the port actually bound.
  container.useLocalServerUrl(`http://localhost:${port}`);
  // npm start loads verify's thread at once; tests start many servers and leave it to the first verify.
  if (options.warmVerifyThread) verifyThread.warm();
  const jobs = startJobPool(container, gateway);
  return {
    url: `http://localhost:${port}`,
    port,
    jobWorker: jobs
      ? `${config.jobs.workers} in-process workers (SIGNET_JOB_WORKERS), queued jobs in the key table, results kept ${config.jobs.ttlSeconds} s (SIGNET_JOB_TTL)`
      : "none (no job store)",
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => void (jobs?.stop() ?? Promise.resolve()).then(() => verifyThread.close()).then(resolve));
        server.closeIdleConnections();
      }),
  };
}
