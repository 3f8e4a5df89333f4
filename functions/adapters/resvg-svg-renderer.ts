import { Worker } from "node:worker_threads";
import { PictureDecodeError, PictureTimeoutError, type SvgRenderer } from "#domain/docx/picture-formats.ts";

/** RESVG_WASM is resvg's WebAssembly: its name beside a bundle and its path in the package. */
export const RESVG_WASM = { file: "resvg.wasm", module: "@resvg/resvg-wasm/index_bg.wasm" } as const;

/** RESVG_GLUE is resvg's JavaScript glue (an ES module) the render thread imports: its name beside a bundle and its path in the package. */
export const RESVG_GLUE = { file: "resvg.mjs", module: "@resvg/resvg-wasm/index.mjs" } as const;

/** ResvgOptions say where resvg is, which fonts draw SVG text and how long one render may take. */
export interface ResvgOptions {
  /** Path of @resvg/resvg-wasm's index_bg.wasm (beside the bundle on Lambda). */
  wasmPath: string;
  /** Path of its ES module glue (index.mjs in the package). */
  gluePath: string;
  /** TrueType fonts for <text>; the WebAssembly build sees no system fonts, so text without them is not drawn. */
  fonts?: () => Uint8Array[];
  /** One size or render call's time limit; past it the thread is ended (PictureTimeoutError). */
  timeoutMs?: number;
}

/** THREAD_START_TIMEOUT_MS bounds a render thread's start (loading resvg), which no render limit counts. */
const THREAD_START_TIMEOUT_MS = 60_000;

/**
 * RENDER_TIMEOUT_MS bounds one render: an SVG within the element and pixel limits can still ask
 * for minutes of work (measured here: 100 masked or pattern-filled full-size rectangles at
 * 2000 px took 27-44 s, one large blur 20 s).
 */
const RENDER_TIMEOUT_MS = 10_000;

// The render thread: resvg's glue and WebAssembly loaded once, then one request at a time. Only
// dynamic import(): an eval'd worker is CommonJS or an ES module depending on the process's flags.
const THREAD = `
(async () => {
  const { parentPort, workerData } = await import("node:worker_threads");
  const { readFileSync } = await import("node:fs");
  const { pathToFileURL } = await import("node:url");
  const { initWasm, Resvg } = await import(pathToFileURL(workerData.gluePath).href);
  await initWasm(readFileSync(workerData.wasmPath));
  const font = { fontBuffers: workerData.fonts, defaultFontFamily: "DejaVu Sans", sansSerifFamily: "DejaVu Sans" };
  parentPort.postMessage({ ready: true });
  parentPort.on("message", ({ id, svg, width }) => {
    let resvg;
    try {
      resvg = new Resvg(svg, width ? { font, fitTo: { mode: "width", value: width } } : { font });
    } catch (error) {
      parentPort.postMessage({ id, unreadable: String(error) });
      return;
    }
    try {
      if (!width) return parentPort.postMessage({ id, size: { width: resvg.width, height: resvg.height } });
      const image = resvg.render();
      const png = image.asPng();
      image.free();
      parentPort.postMessage({ id, png });
    } catch (error) {
      parentPort.postMessage({ id, unreadable: String(error) });
    } finally {
      resvg.free();
    }
  });
})().catch(async (error) => (await import("node:worker_threads")).parentPort.postMessage({ fatal: String((error && error.stack) || error) }));
`;

type Reply = { id: number; size?: { width: number; height: number }; png?: Uint8Array; unreadable?: string };
type StartReply = { ready: true } | { fatal: string };

/** Thread is a render thread and its start: resolved once resvg is loaded in it. */
interface Thread {
  worker: Worker;
  ready: Promise<void>;
}

/**
 * ResvgSvgRenderer draws SVG with resvg compiled to WebAssembly (no platform binary, and no file or
 * network access of its own: images it would resolve are only listed, never loaded), in a worker
 * thread of its own, so a long render neither blocks the event loop nor outlives its time limit:
 * past it the thread is ended and the call fails with PictureTimeoutError; the next call starts a
 * new thread. The limit counts the render only, not a thread's start (loading resvg took more
 * than 1.5 s on a loaded machine, which failed a small SVG after a time-out as "too much work").
 * Calls run one after another. SVG the parser refuses becomes PictureDecodeError.
 */
export class ResvgSvgRenderer implements SvgRenderer {
  #thread: Thread | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #next = 0;

  constructor(private readonly options: ResvgOptions) {}

  /** size is the SVG's own size as resvg reads its width, height and viewBox. */
  async size(svg: string): Promise<{ width: number; height: number }> {
    return (await this.#call(svg, undefined)).size!;
  }

  /** renderPng draws the SVG `width` px wide as a PNG. */
  async renderPng(svg: string, width: number): Promise<Uint8Array> {
    return (await this.#call(svg, width)).png!;
  }

  /** close ends the render thread. */
  async close(): Promise<void> {
    const thread = this.#thread;
    this.#thread = undefined;
    await thread?.worker.terminate();
  }

  #call(svg: string, width: number | undefined): Promise<{ size?: { width: number; height: number }; png?: Uint8Array }> {
    const run = this.#queue.then(() => this.#send(svg, width));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #send(svg: string, width: number | undefined): Promise<{ size?: { width: number; height: number }; png?: Uint8Array }> {
    const thread = this.#startThread();
    await thread.ready;
    const { worker } = thread;
    const id = this.#next++;
    const timeoutMs = this.options.timeoutMs ?? RENDER_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("exit", onExit);
      };
      const onMessage = (reply: Reply) => {
        if (reply.id === id) {
          done();
          if (reply.unreadable !== undefined) reject(new PictureDecodeError(`resvg cannot read the SVG: ${reply.unreadable}`));
          else resolve({ ...(reply.size ? { size: reply.size } : {}), ...(reply.png ? { png: new Uint8Array(reply.png) } : {}) });
        }
      };
      const onExit = () => {
        done();
        if (this.#thread === thread) this.#thread = undefined;
        reject(new Error("the resvg thread ended"));
      };
      const timer = setTimeout(() => {
        done();
        if (this.#thread === thread) this.#thread = undefined;
        void worker.terminate();
        reject(new PictureTimeoutError(timeoutMs));
      }, timeoutMs);
      worker.on("message", onMessage);
      worker.on("exit", onExit);
      worker.postMessage({ id, svg, width });
    });
  }

  /** startThread is the render thread, started when there is none; its `ready` rejects when resvg does not load. */
  #startThread(): Thread {
    if (this.#thread) return this.#thread;
    const { wasmPath, gluePath } = this.options;
    const fonts = this.options.fonts?.() ?? [];
    const worker = new Worker(THREAD, { eval: true, workerData: { wasmPath, gluePath, fonts } });
    worker.unref();
    const ready = new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        clearTimeout(timer);
        worker.off("message", onMessage);
        worker.off("exit", onExit);
        if (!error) return resolve();
        if (this.#thread === thread) this.#thread = undefined;
        void worker.terminate();
        reject(error);
      };
      const onMessage = (reply: StartReply) => settle("fatal" in reply ? new Error(`resvg could not start: ${reply.fatal}`) : undefined);
      const onExit = () => settle(new Error("the resvg thread ended while starting"));
      const timer = setTimeout(() => settle(new Error(`resvg did not start within ${THREAD_START_TIMEOUT_MS / 1000} s`)), THREAD_START_TIMEOUT_MS);
      timer.unref();
      worker.on("message", onMessage);
      worker.on("exit", onExit);
    });
    const thread = { worker, ready };
    this.#thread = thread;
    return thread;
  }
}
