import { PictureThread } from "#adapters/picture-thread.ts";
import type { SvgRenderer } from "#domain/pictures/picture-formats.ts";

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
  /**
   * One size or render call's time limit in ms (SIGNET_PICTURE_RENDER_TIMEOUT_MS); past it the
   * thread is ended (PictureTimeoutError). An SVG within the element and pixel limits can still ask
   * for minutes of work (measured here: 100 masked or pattern-filled full-size rectangles at
   * 2000 px took 27-44 s, one large blur 20 s).
   */
  timeoutMs: number;
}

// The render thread: resvg's glue and WebAssembly loaded once, then one request at a time.
const SETUP = `
  const { initWasm, Resvg } = await import(pathToFileURL(workerData.gluePath).href);
  await initWasm(readFileSync(workerData.wasmPath));
  const font = { fontBuffers: workerData.fonts, defaultFontFamily: "DejaVu Sans", sansSerifFamily: "DejaVu Sans" };
  return ({ svg, width }) => {
    const resvg = new Resvg(svg, width ? { font, fitTo: { mode: "width", value: width } } : { font });
    try {
      if (!width) return { message: { size: { width: resvg.width, height: resvg.height } } };
      const image = resvg.render();
      const png = image.asPng();
      image.free();
      return { message: { png } };
    } finally {
      resvg.free();
    }
  };
`;

/**
 * ResvgSvgRenderer draws SVG with resvg compiled to WebAssembly (no platform binary, and no file or
 * network access of its own: images it would resolve are only listed, never loaded), in a picture
 * thread of its own (PictureThread: ended past its time limit, PictureTimeoutError; the next call
 * starts a new one). SVG the parser refuses becomes PictureDecodeError.
 */
export class ResvgSvgRenderer implements SvgRenderer {
  readonly #thread: PictureThread;

  constructor(options: ResvgOptions) {
    const { wasmPath, gluePath, fonts, timeoutMs } = options;
    this.#thread = new PictureThread({ name: "resvg", setup: SETUP, timeoutMs, workerData: () => ({ wasmPath, gluePath, fonts: fonts?.() ?? [] }) });
  }

  /** size is the SVG's own size as resvg reads its width, height and viewBox. */
  async size(svg: string): Promise<{ width: number; height: number }> {
    return (await this.#thread.call<{ size: { width: number; height: number } }>({ svg })).size;
  }

  /** renderPng draws the SVG `width` px wide as a PNG. */
  async renderPng(svg: string, width: number): Promise<Uint8Array> {
    return new Uint8Array((await this.#thread.call<{ png: Uint8Array }>({ svg, width })).png);
  }

  /** close ends the render thread. */
  close(): Promise<void> {
    return this.#thread.close();
  }
}
