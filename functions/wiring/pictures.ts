/**
 * Wiring of pictures (annotate's SVG and WebP values): the SVG renderer and the WebP decoder of
 * this process, their WebAssembly found beside the bundle (Lambda: infra/signet-stack.ts ships it
 * there) or else in node_modules (the local server, the tests). SVG text is drawn with DejaVu Sans
 * from SIGNET_FONTS_DIR (the WebAssembly renderer sees no system fonts).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { config } from "#config";
import { JsquashWebpDecoder, WEBP_WASM } from "#adapters/jsquash-webp-decoder.ts";
import { RESVG_WASM, ResvgSvgRenderer } from "#adapters/resvg-svg-renderer.ts";
import type { PictureConverters } from "#domain/docx/picture-formats.ts";

function wasmPath(wasm: { file: string; module: string }): string {
  const beside = fileURLToPath(new URL(`./${wasm.file}`, import.meta.url));
  return existsSync(beside) ? beside : createRequire(import.meta.url).resolve(wasm.module);
}

let shared: PictureConverters | undefined;

/** pictures is the process-wide pair of converters, created on first use (the WebAssembly loads on the first picture). */
export function pictures(): PictureConverters {
  const fonts = () => [readFileSync(join(config.signing.fontsDir, "DejaVuSans.ttf"))];
  shared ??= { svg: new ResvgSvgRenderer({ wasmPath: wasmPath(RESVG_WASM), fonts }), webp: new JsquashWebpDecoder({ wasmPath: wasmPath(WEBP_WASM) }) };
  return shared;
}
