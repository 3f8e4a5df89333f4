import { Worker } from "node:worker_threads";
import { PictureDecodeError, PictureTimeoutError } from "#domain/pictures/picture-formats.ts";

/**
 * PictureThreadOptions say what a picture thread runs and how long one call may take. The thread
 * runs `setup` once, then posts `{ ready: true }` (or `{ fatal }` when setup throws), then answers
 * each `{ id, ...request }` with `{ id, ...message }` or, when the answer throws, `{ id, unreadable }`.
 */
export interface PictureThreadOptions {
  /** The library the thread runs, for messages ("resvg", "libwebp"). */
  name: string;
  /**
   * The body of an async function run in the thread (evaluated as a string: only dynamic import()
   * inside, since an eval'd worker is CommonJS or an ES module depending on the process's flags).
   * It sees `workerData`, `readFileSync` and `pathToFileURL`, loads its library and returns
   * `answer(request)`, which returns `{ message, transfer? }` or throws what it cannot read.
   */
  setup: string;
  /** What the thread starts with, built each time a thread starts. */
  workerData: () => unknown;
  /** One call's time limit in ms, counted once the thread is ready; past it the thread is ended (PictureTimeoutError). */
  timeoutMs: number;
}

/** threadSource wraps a library's setup in the thread side of the protocol PictureThread speaks. */
function threadSource(setup: string): string {
  return `
(async () => {
  const { parentPort, workerData } = await import("node:worker_threads");
  const { readFileSync } = await import("node:fs");
  const { pathToFileURL } = await import("node:url");
  const answer = await (async () => {${setup}})();
  parentPort.on("message", ({ id, ...request }) => {
    let result;
    try {
      result = answer(request);
    } catch (error) {
      return parentPort.postMessage({ id, unreadable: String(error) });
    }
    parentPort.postMessage({ id, ...result.message }, result.transfer ?? []);
  });
  parentPort.postMessage({ ready: true });
})().catch(async (error) => (await import("node:worker_threads")).parentPort.postMessage({ fatal: String((error && error.stack) || error) }));
`;
}

/**
 * START_TIMEOUT_MS bounds a thread's start (reading and compiling its WebAssembly, resvg's fonts),
 * counted apart from the call's own limit: a short picture limit must not fail a cold start.
 */
const START_TIMEOUT_MS = 30_000;

type Message = { ready: true } | { fatal: string } | ({ id: number; unreadable?: string } & Record<string, unknown>);

/**
 * PictureThread runs one WebAssembly picture library in a worker thread of its own, so a long call
 * neither blocks the event loop nor outlives its time limit: past it the thread is ended, the call
 * fails with PictureTimeoutError and the next call starts a new thread. Calls run one after
 * another. What the library cannot read comes back as PictureDecodeError.
 */
export class PictureThread {
  #worker: Promise<Worker> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #next = 0;

  constructor(private readonly options: PictureThreadOptions) {}

  /** call sends one request and resolves with the thread's answer (without its id). */
  call<T>(request: Record<string, unknown>): Promise<T> {
    const run = this.#queue.then(() => this.#send<T>(request));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** close ends the thread. */
  async close(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    await (await worker?.catch(() => undefined))?.terminate();
  }

  async #send<T>(request: Record<string, unknown>): Promise<T> {
    const started = this.#thread();
    const worker = await started;
    const id = this.#next++;
    const { timeoutMs, name } = this.options;
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("exit", onExit);
      };
      const end = () => {
        if (this.#worker === started) this.#worker = undefined;
        void worker.terminate();
      };
      const onMessage = (message: Message) => {
        if (!("id" in message) || message.id !== id) return;
        done();
        const { id: _, unreadable, ...result } = message;
        if (unreadable !== undefined) reject(new PictureDecodeError(`${name} cannot read the picture: ${unreadable}`));
        else resolve(result as T);
      };
      const onExit = () => {
        done();
        end();
        reject(new Error(`the ${name} thread ended`));
      };
      const timer = setTimeout(() => {
        done();
        end();
        reject(new PictureTimeoutError(timeoutMs));
      }, timeoutMs);
      worker.on("message", onMessage);
      worker.on("exit", onExit);
      worker.postMessage({ ...request, id });
    });
  }

  #thread(): Promise<Worker> {
    this.#worker ??= this.#start();
    return this.#worker;
  }

  #start(): Promise<Worker> {
    const { name, setup, workerData } = this.options;
    const worker = new Worker(threadSource(setup), { eval: true, workerData: workerData() });
    worker.unref();
    const started = new Promise<Worker>((resolve, reject) => {
      const fail = (error: Error) => {
        done();
        void worker.terminate();
        reject(error);
      };
      const onMessage = (message: Message) => {
        if ("ready" in message) {
          done();
          resolve(worker);
        } else if ("fatal" in message) fail(new Error(`${name} could not start: ${message.fatal}`));
      };
      const onExit = () => fail(new Error(`the ${name} thread ended while starting`));
      const done = () => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("exit", onExit);
      };
      const timer = setTimeout(() => fail(new Error(`${name} did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS);
      worker.on("message", onMessage);
      worker.on("exit", onExit);
    });
    // A thread that failed to start is forgotten, so the next call tries a new one.
    started.catch(() => {
      if (this.#worker === started) this.#worker = undefined;
    });
    return started;
  }
}
