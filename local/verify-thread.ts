import type { Worker } from "node:worker_threads";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { logger } from "#adapters/powertools-logger.ts";
import { errorResponse } from "#http/error-response.ts";
import { rawBodyOf } from "#http/raw-body.ts";
import type { HttpResponse } from "#http/responses.ts";
import { typeScriptWorker } from "#local/stand-ins.ts";
import type { Config } from "#config";

/** HARD_LIMIT_MS is when a verification the domain's own time budget did not stop is abandoned (its thread ended). */
const HARD_LIMIT_MS = 30_000;

interface Pending {
  resolve: (response: HttpResponse) => void;
  requestId: string;
  timer: NodeJS.Timeout;
}

/**
 * VerifyThread runs POST /v1/verify in a worker thread (local/verify-worker.ts) for the local
 * server: the handler is the Lambda's, only where it runs differs. A verification still running
 * after HARD_LIMIT_MS ends the thread (and every verification in it) with a 422; the next
 * request starts a new one.
 */
export class VerifyThread {
  readonly #config: Config;
  #worker: Worker | undefined;
  #pending = new Map<number, Pending>();
  #next = 0;

  /** The thread makes its own container from config (the server's): the same settings, its own instances. */
  constructor(config: Config) {
    this.#config = config;
  }

  /** handle is the verify route's handler on the local server. */
  readonly handle = (event: APIGatewayProxyEvent, _context: Context): Promise<HttpResponse> =>
    new Promise((resolve) => {
      const id = this.#next++;
      const requestId = event.requestContext.requestId;
      const timer = setTimeout(() => this.#abandon(), HARD_LIMIT_MS);
      this.#pending.set(id, { resolve, requestId, timer });
      // The body goes as its bytes (the event's base64 `body` is computed only when read, in the thread).
      const copy = Object.fromEntries(
        Object.keys(event)
          .filter((name) => name !== "body")
          .map((name) => [name, event[name as keyof APIGatewayProxyEvent]]),
      );
      this.#thread().postMessage({ id, event: copy, body: rawBodyOf(event) });
    });

  /** warm starts the thread ahead of the first verify (its module graph loads in the thread, not while a request waits). */
  warm(): void {
    this.#thread();
  }

  /** close ends the thread. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await worker?.terminate();
  }

  #thread(): Worker {
    if (this.#worker) return this.#worker;
    const worker = typeScriptWorker(new URL("./verify-worker.ts", import.meta.url), { workerData: { config: this.#config } });
    worker.unref();
    worker.on("message", (message: "ready" | { id: number; response?: HttpResponse; error?: string }) => {
      if (message === "ready") return;
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#settle(message.id, message.response ?? this.#failure(pending.requestId, message.error));
    });
    worker.on("error", (error) => {
      logger.error("verify thread failed", { error });
      this.#failAll((requestId) => this.#failure(requestId, error.message));
    });
    worker.on("exit", () => {
      if (this.#worker === worker) this.#worker = undefined;
      this.#failAll((requestId) => this.#failure(requestId, "the verify thread ended"));
    });
    this.#worker = worker;
    return worker;
  }

  #failure(requestId: string, cause: string | undefined): HttpResponse {
    logger.error("verify failed in its thread", { cause });
    return errorResponse("INTERNAL_ERROR", "Something went wrong on our side; the failure is logged.", requestId);
  }

  #abandon(): void {
    const seconds = HARD_LIMIT_MS / 1000;
    this.#failAll((requestId) =>
      errorResponse(
        "INVALID_DOCUMENT",
        `The PDF took longer than ${seconds} s to verify; Signet verifies documents it can analyse within ${seconds} s.`,
        requestId,
        {
          details: [{ field: "document", issue: `verifiable within ${seconds} s` }],
        },
      ),
    );
    const worker = this.#worker;
    this.#worker = undefined;
    void worker?.terminate();
  }

  #settle(id: number, response: HttpResponse): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.#pending.delete(id);
    pending.resolve(response);
  }

  #failAll(answer: (requestId: string) => HttpResponse): void {
    for (const [id, pending] of this.#pending) this.#settle(id, answer(pending.requestId));
  }
}
