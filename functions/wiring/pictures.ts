/**
 * Wiring of pictures (annotate's SVG and WebP values): the SVG renderer and the WebP decoder of
 * a container, their WebAssembly found beside the bundle (Lambda: infra/signet-stack.ts ships it
 * there) or else in node_modules (the local server, the tests). SVG text is drawn with DejaVu Sans
 * from SIGNET_FONTS_DIR (the WebAssembly renderer sees no system fonts). resvg runs in a thread
 * of its own, importing its glue (resvg.mjs beside the bundle, index.mjs in the package), and so
 * does libwebp (webp_dec.mjs beside the bundle, webp_dec.js in the package); each call of either
 * may take SIGNET_PICTURE_RENDER_TIMEOUT_MS.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Config } from "#config";
import { JsquashWebpDecoder, WEBP_GLUE, WEBP_WASM } from "#adapters/jsquash-webp-decoder.ts";
import { RESVG_GLUE, RESVG_WASM, ResvgSvgRenderer } from "#adapters/resvg-svg-renderer.ts";
import type { PictureConverters } from "#domain/pictures/picture-formats.ts";
import type { Container } from "#wiring/container.ts";

const beside = (file: string) => fileURLToPath(new URL(`./${file}`, import.meta.url));

function wasmPath(wasm: { file: string; module: string }): string {
  return existsSync(beside(wasm.file)) ? beside(wasm.file) : createRequire(import.meta.url).resolve(wasm.module);
}

// resvg's package exports only its .wasm and its entry: the ES module glue sits beside the .wasm,
// as libwebp's does.
function gluePath(glue: { file: string; module: string }, wasm: { file: string; module: string }): string {
  return existsSync(beside(glue.file)) ? beside(glue.file) : join(dirname(wasmPath(wasm)), glue.module.split("/").pop()!);
}

/** pictures is a container's pair of converters, made on first use (the WebAssembly loads on the first picture). */
export function pictures(container: Container): PictureConverters {
  return container.part("pictures", (own) => createPictures(own.config));
}

/** createPictures is the pair of converters of a config. */
export function createPictures(config: Pick<Config, "pictures" | "signing">): PictureConverters {
  const { renderTimeoutMs: timeoutMs } = config.pictures;
  const fonts = () => [readFileSync(join(config.signing.fontsDir, "DejaVuSans.ttf"))];
  return {
    svg: new ResvgSvgRenderer({ wasmPath: wasmPath(RESVG_WASM), gluePath: gluePath(RESVG_GLUE, RESVG_WASM), fonts, timeoutMs }),
    webp: new JsquashWebpDecoder({ wasmPath: wasmPath(WEBP_WASM), gluePath: gluePath(WEBP_GLUE, WEBP_WASM), timeoutMs }),
  };
}
