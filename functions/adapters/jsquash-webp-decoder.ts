import { PictureThread } from "#adapters/picture-thread.ts";
import type { WebpDecoder } from "#domain/pictures/picture-formats.ts";

/** WEBP_WASM is libwebp's decoder WebAssembly: its name beside a bundle and its path in the package. */
export const WEBP_WASM = { file: "webp_dec.wasm", module: "@jsquash/webp/codec/dec/webp_dec.wasm" } as const;

/** WEBP_GLUE is the decoder's Emscripten glue (an ES module without imports) the decode thread imports: its name beside a bundle and its path in the package. */
export const WEBP_GLUE = { file: "webp_dec.mjs", module: "@jsquash/webp/codec/dec/webp_dec.js" } as const;

/** JsquashWebpOptions say where libwebp is and how long one decode may take. */
export interface JsquashWebpOptions {
  /** Path of webp_dec.wasm (beside the bundle on Lambda). */
  wasmPath: string;
  /** Path of its Emscripten glue, webp_dec.js in the package (webp_dec.mjs beside the bundle). */
  gluePath: string;
  /** One decode's time limit in ms (SIGNET_PICTURE_RENDER_TIMEOUT_MS); past it the thread is ended (PictureTimeoutError). */
  timeoutMs: number;
}

// The decode thread: the glue given the compiled module (so it never fetches the file), as
// @jsquash/webp's own init does; the pixels move back to the caller without a copy.
const SETUP = `
  const { default: factory } = await import(pathToFileURL(workerData.gluePath).href);
  const wasm = await WebAssembly.compile(readFileSync(workerData.wasmPath));
  const instantiateWasm = (imports, callback) => {
    const instance = new WebAssembly.Instance(wasm, imports);
    callback(instance);
    return instance.exports;
  };
  const libwebp = await factory({ noInitialRun: true, instantiateWasm });
  return ({ bytes }) => {
    const image = libwebp.decode(bytes);
    if (!image) throw "Decoding error";
    const data = image.data;
    const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength;
    const rgba = whole ? new Uint8Array(data.buffer) : new Uint8Array(data);
    return { message: { width: image.width, height: image.height, rgba }, transfer: [rgba.buffer] };
  };
`;

/**
 * JsquashWebpDecoder decodes WebP with libwebp compiled to WebAssembly (@jsquash/webp, from
 * Google's Squoosh): lossy, lossless and alpha, no platform binary, in a picture thread of its own
 * (PictureThread: a decode that takes longer than its time limit ends the thread with
 * PictureTimeoutError and never blocks the event loop; the next call starts a new one). The module
 * is compiled from `wasmPath`, never fetched. Bytes it cannot decode become PictureDecodeError.
 */
export class JsquashWebpDecoder implements WebpDecoder {
  readonly #thread: PictureThread;

  constructor(options: JsquashWebpOptions) {
    const { wasmPath, gluePath, timeoutMs } = options;
    this.#thread = new PictureThread({ name: "libwebp", setup: SETUP, timeoutMs, workerData: () => ({ wasmPath, gluePath }) });
  }

  /** decode returns the picture's RGBA pixels. */
  async decode(bytes: Uint8Array): Promise<{ width: number; height: number; rgba: Uint8Array }> {
    const image = await this.#thread.call<{ width: number; height: number; rgba: Uint8Array }>({ bytes });
    return { width: image.width, height: image.height, rgba: new Uint8Array(image.rgba.buffer, image.rgba.byteOffset, image.rgba.byteLength) };
  }

  /** close ends the decode thread. */
  close(): Promise<void> {
    return this.#thread.close();
  }
}
