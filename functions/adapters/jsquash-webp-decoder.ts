import { readFileSync } from "node:fs";
import decode, { init } from "@jsquash/webp/decode.js";
import { PictureDecodeError, type WebpDecoder } from "#domain/docx/picture-formats.ts";

/** WEBP_WASM is libwebp's decoder WebAssembly: its name beside a bundle and its path in the package. */
export const WEBP_WASM = { file: "webp_dec.wasm", module: "@jsquash/webp/codec/dec/webp_dec.wasm" } as const;

// lib ES2023 without DOM declares no WebAssembly global; Node has it.
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<unknown> } }).WebAssembly;

// init sets up one module-wide decoder; one promise per process.
let ready: Promise<void> | undefined;

/**
 * JsquashWebpDecoder decodes WebP with libwebp compiled to WebAssembly (@jsquash/webp, from
 * Google's Squoosh): lossy, lossless and alpha, no platform binary. The module is instantiated from
 * `wasmPath` (beside the bundle on Lambda), never fetched. Bytes it cannot decode become PictureDecodeError.
 */
export class JsquashWebpDecoder implements WebpDecoder {
  constructor(private readonly options: { wasmPath: string }) {}

  /** decode returns the picture's RGBA pixels. */
  async decode(bytes: Uint8Array): Promise<{ width: number; height: number; rgba: Uint8Array }> {
    ready ??= (async () => {
      // Given a compiled module, the Emscripten glue instantiates it instead of fetching the file.
      const module = await wasm.compile(readFileSync(this.options.wasmPath));
      await init(module as Parameters<typeof init>[0]);
    })();
    await ready;
    let image: { width: number; height: number; data: Uint8ClampedArray };
    try {
      image = await decode(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    } catch (error) {
      throw new PictureDecodeError(`libwebp cannot decode the WebP: ${String(error)}`, { cause: error });
    }
    return { width: image.width, height: image.height, rgba: new Uint8Array(image.data.buffer, image.data.byteOffset, image.data.byteLength) };
  }
}
