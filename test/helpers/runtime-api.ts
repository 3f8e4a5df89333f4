import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** InvocationResult is what a runtime client posted for one invocation. */
export interface InvocationResult {
  requestId: string;
  /** "response" (…/response) or "error" (…/error, or the init error before any invocation). */
  kind: "response" | "error";
  /** Lambda-Runtime-Function-Response-Mode: "streaming" for a streamed answer. */
  mode: string | undefined;
  contentType: string | undefined;
  body: Buffer;
  /** Trailers a streamed answer ends with (Lambda-Runtime-Function-Error-Type when it failed mid-stream). */
  trailers: Record<string, string>;
}

interface Pending {
  requestId: string;
  event: unknown;
  deadlineMs: number;
  settle: (result: InvocationResult) => void;
}

/**
 * RuntimeApiStandIn is a small local Lambda Runtime API (2018-06-01): what a runtime client such
 * as aws-lambda-ric polls for events and posts answers to. It serves one queued event per
 * `GET …/invocation/next`, and records `POST …/response` (buffered or streamed, with trailers),
 * `…/error` and `…/init/error`.
 */
export class RuntimeApiStandIn {
  #server: Server;
  #queue: Pending[] = [];
  #waiting: ServerResponse[] = [];
  #inFlight = new Map<string, Pending>();
  #initErrors: InvocationResult[] = [];

  constructor() {
    this.#server = createServer((req, res) => void this.#route(req, res));
  }

  /** start listens on a free port of 127.0.0.1 and gives the AWS_LAMBDA_RUNTIME_API value. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return `127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** invoke queues one event and resolves with what the client posted for it. */
  invoke(event: unknown, options: { timeoutMs?: number } = {}): Promise<InvocationResult> {
    return new Promise((settle) => {
      const pending = { requestId: randomUUID(), event, deadlineMs: Date.now() + (options.timeoutMs ?? 30_000), settle };
      const waiting = this.#waiting.shift();
      if (waiting) this.#hand(waiting, pending);
      else this.#queue.push(pending);
    });
  }

  /** initErrors are the init failures the client reported (a handler that did not load). */
  get initErrors(): readonly InvocationResult[] {
    return this.#initErrors;
  }

  /** abandon settles every queued and in-flight invocation as an error (the client process ended). */
  abandon(reason: string): void {
    const failed = (requestId: string): InvocationResult => ({
      requestId,
      kind: "error",
      mode: undefined,
      contentType: undefined,
      body: Buffer.from(reason),
      trailers: {},
    });
    for (const pending of this.#queue.splice(0)) pending.settle(failed(pending.requestId));
    for (const [requestId, pending] of this.#inFlight) pending.settle(failed(requestId));
    this.#inFlight.clear();
  }

  /** close stops the server, dropping any client still polling. */
  async close(): Promise<void> {
    for (const waiting of this.#waiting.splice(0)) waiting.destroy();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #hand(res: ServerResponse, pending: Pending): void {
    this.#inFlight.set(pending.requestId, pending);
    res.writeHead(200, {
      "Content-Type": "application/json",
      "Lambda-Runtime-Aws-Request-Id": pending.requestId,
      "Lambda-Runtime-Deadline-Ms": String(pending.deadlineMs),
      "Lambda-Runtime-Invoked-Function-Arn": "arn:aws:lambda:eu-west-1:123456789012:function:signet-test",
      "Lambda-Runtime-Trace-Id": `Root=1-00000000-${"0".repeat(24)};Parent=${"0".repeat(16)};Sampled=0`,
    });
    res.end(JSON.stringify(pending.event));
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "";
    if (req.method === "GET" && url === "/2018-06-01/runtime/invocation/next") {
      const pending = this.#queue.shift();
      if (pending) this.#hand(res, pending);
      else this.#waiting.push(res);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const result = (requestId: string, kind: InvocationResult["kind"]): InvocationResult => ({
      requestId,
      kind,
      mode: req.headers["lambda-runtime-function-response-mode"] as string | undefined,
      contentType: req.headers["content-type"],
      body: Buffer.concat(chunks),
      trailers: Object.fromEntries(Object.entries(req.trailers).map(([name, value]) => [name.toLowerCase(), String(value)])),
    });
    const answer = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(url);
    if (req.method === "POST" && answer) {
      const requestId = decodeURIComponent(answer[1]!);
      const pending = this.#inFlight.get(requestId);
      this.#inFlight.delete(requestId);
      res.writeHead(202, { "Content-Type": "application/json" }).end('{"status":"OK"}');
      pending?.settle(result(requestId, answer[2] as InvocationResult["kind"]));
      return;
    }
    if (req.method === "POST" && url === "/2018-06-01/runtime/init/error") {
      this.#initErrors.push(result("init", "error"));
      res.writeHead(202, { "Content-Type": "application/json" }).end('{"status":"OK"}');
      // A client that failed to start serves nothing: settle whatever waits, so no test hangs.
      for (const pending of this.#queue.splice(0)) pending.settle(result(pending.requestId, "error"));
      return;
    }
    res.writeHead(404).end();
  }
}
