import { SignetError } from "#domain/shared/errors.ts";
import { encodePng } from "#domain/shared/png.ts";
import { checkImagePixels, readImageInfo, readWebpSize } from "#domain/pictures/image-info.ts";
import { sanitiseSvg } from "#domain/pictures/svg.ts";

/** PictureDecodeError is what a renderer or decoder adapter raises for bytes it cannot read. */
export class PictureDecodeError extends Error {
  override readonly name: string = "PictureDecodeError";
}

/** PictureTimeoutError is what a renderer or decoder adapter raises when a picture takes longer than its time limit. */
export class PictureTimeoutError extends PictureDecodeError {
  override readonly name = "PictureTimeoutError";

  constructor(readonly timeoutMs: number) {
    super(`the picture took longer than ${timeoutMs} ms`);
  }
}

/** SvgRenderer draws SVG pictures (an adapter wraps the renderer library). */
export interface SvgRenderer {
  /** size is the picture's own size in px, as the renderer reads its width, height and viewBox. */
  size(svg: string): Promise<{ width: number; height: number }>;
  /** renderPng draws the picture `width` px wide, the height following its aspect ratio, as a PNG. */
  renderPng(svg: string, width: number): Promise<Uint8Array>;
}

/** WebpDecoder decodes WebP pictures, lossy or lossless, with or without alpha (an adapter wraps the decoder). */
export interface WebpDecoder {
  decode(bytes: Uint8Array): Promise<{ width: number; height: number; rgba: Uint8Array }>;
}

/** PictureConverters turn the formats a document cannot carry alone into PNG. */
export interface PictureConverters {
  svg: SvgRenderer;
  webp: WebpDecoder;
}

/** ConvertedPicture is a PNG to show, the size to draw it at by default and, for an SVG, the sanitised SVG. */
export interface ConvertedPicture {
  png: Uint8Array;
  width: number;
  height: number;
  svg?: Uint8Array;
}

/**
 * FALLBACK_MIN_SIDE and FALLBACK_MAX_SIDE bound the longer side of an SVG's PNG fallback: twice the
 * picture's own size (192 dpi where it is drawn at that size), at least 1024 px so a small drawing
 * stays sharp when scaled up, at most 2048 px (rendering and PNG encoding grow with the pixels:
 * measured on 2 busy cores with the WebAssembly renderer, a 300 x 100 signature at 1024 x 341 px
 * in 20-60 ms, a 1000 x 1000 drawing at 2000 x 2000 px in 220-420 ms, once warm).
 */
const FALLBACK_MIN_SIDE = 1024;
const FALLBACK_MAX_SIDE = 2048;

const unreadable = (field: string, what: string, cause: unknown) =>
  new SignetError("INVALID_IMAGE", `${field} is not a ${what} Signet can read; check that the file opens in an image viewer.`, {
    details: [{ field: `${field}.value`, issue: `unreadable ${what}` }],
    cause,
  });

// What a caller is told when a picture outlasts the time limit: the work, and how to avoid it.
const TOO_SLOW = {
  "SVG image": { verb: "render", fix: "simplify the SVG (fewer shapes, masks, patterns or filters) or send it as a PNG" },
  "WebP image": { verb: "decode", fix: "send it as a PNG or JPEG, or smaller" },
} as const;

async function adapterCall<T>(call: () => Promise<T>, field: string, what: keyof typeof TOO_SLOW): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof PictureTimeoutError) {
      const seconds = error.timeoutMs / 1000;
      const { verb, fix } = TOO_SLOW[what];
      throw new SignetError("INVALID_IMAGE", `${field} takes longer than ${seconds} s to ${verb}; ${fix}.`, {
        details: [{ field: `${field}.value`, issue: `not ${verb === "render" ? "renderable" : "decodable"} within ${seconds} s` }],
        cause: error,
      });
    }
    if (error instanceof PictureDecodeError) throw unreadable(field, what, error);
    throw error;
  }
}

/**
 * fallbackWidth is the width in px to render an SVG's PNG fallback at (see FALLBACK_MIN_SIDE), with
 * the whole fallback kept within maxPixels.
 */
export function fallbackWidth(size: { width: number; height: number }, maxPixels: number): number {
  const longer = Math.max(size.width, size.height);
  let scale = Math.min(FALLBACK_MAX_SIDE, Math.max(FALLBACK_MIN_SIDE, 2 * longer)) / longer;
  const pixels = size.width * scale * size.height * scale;
  if (pixels > maxPixels) scale *= Math.sqrt(maxPixels / pixels) * 0.99;
  return Math.max(1, Math.floor(size.width * scale));
}

/**
 * convertSvg sanitises an SVG (see sanitiseSvg), checks the size it declares against the pixel limit
 * (IMAGE_TOO_LARGE) and renders its PNG fallback. Word 2016 and later show the SVG; older readers
 * and LibreOffice show the PNG.
 */
export async function convertSvg(bytes: Uint8Array, field: string, deps: { renderer: SvgRenderer; maxImagePixels: number }): Promise<ConvertedPicture> {
  const { text } = sanitiseSvg(bytes, field, deps);
  const size = await adapterCall(() => deps.renderer.size(text), field, "SVG image");
  if (!(size.width > 0 && size.height > 0)) throw unreadable(field, "SVG image", new Error("no size"));
  checkImagePixels(size, deps.maxImagePixels, field, `${field}.value`);
  const png = await adapterCall(() => deps.renderer.renderPng(text, fallbackWidth(size, deps.maxImagePixels)), field, "SVG image");
  const rendered = readImageInfo(png);
  if (!rendered) throw unreadable(field, "SVG image", new Error("the renderer returned no PNG"));
  checkImagePixels(rendered, deps.maxImagePixels, `${field} (its PNG fallback)`, `${field}.value`);
  return { png, width: size.width, height: size.height, svg: new TextEncoder().encode(text) };
}

/**
 * convertWebp reads a WebP's declared size from its header and checks it against the pixel limit
 * before decoding (IMAGE_TOO_LARGE), refuses an animated one (INVALID_IMAGE: a document holds one
 * still picture, and the decoder reads no animation), then decodes it and writes it as a PNG (alpha kept).
 */
export async function convertWebp(bytes: Uint8Array, field: string, deps: { decoder: WebpDecoder; maxImagePixels: number }): Promise<ConvertedPicture> {
  const declared = readWebpSize(bytes);
  if (!declared) throw unreadable(field, "WebP image", new Error("no VP8, VP8L or VP8X header"));
  checkImagePixels(declared, deps.maxImagePixels, field, `${field}.value`);
  if (declared.animated) {
    throw new SignetError("INVALID_IMAGE", `${field} is an animated WebP; send a still picture (PNG, JPEG, GIF, WebP or SVG).`, {
      details: [{ field: `${field}.value`, issue: "animated WebP" }],
    });
  }
  const decoded = await adapterCall(() => deps.decoder.decode(bytes), field, "WebP image");
  checkImagePixels(decoded, deps.maxImagePixels, field, `${field}.value`);
  return { png: await encodePng(decoded.rgba, decoded.width, decoded.height), width: decoded.width, height: decoded.height };
}
