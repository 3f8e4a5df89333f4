import { SignetError } from "#domain/shared/errors.ts";

/** ImageInfo is what an image's header says about it. */
export interface ImageInfo {
  format: "png" | "jpeg" | "gif";
  contentType: string;
  extension: string;
  width: number;
  height: number;
}

/**
 * readImageInfo identifies PNG, JPEG and GIF by magic bytes and reads their pixel size from the
 * headers (PNG IHDR, GIF logical screen, JPEG start-of-frame). Anything else is undefined.
 */
export function readImageInfo(bytes: Uint8Array): ImageInfo | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 24 && view.getUint32(0) === 0x89504e47 && view.getUint32(4) === 0x0d0a1a0a && view.getUint32(12) === 0x49484452) {
    return sized("png", "image/png", "png", view.getUint32(16), view.getUint32(20));
  }
  if (bytes.length >= 10 && (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a")) {
    return sized("gif", "image/gif", "gif", view.getUint16(6, true), view.getUint16(8, true));
  }
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return readJpeg(bytes, view);
  return undefined;
}

function readJpeg(bytes: Uint8Array, view: DataView): ImageInfo | undefined {
  let p = 2;
  while (p + 4 <= bytes.length) {
    if (bytes[p] !== 0xff) return undefined;
    const marker = bytes[p + 1]!;
    if (marker === 0xff) {
      p++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      p += 2; // standalone markers carry no length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return undefined; // image data before any frame header
    const length = view.getUint16(p + 2);
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) {
      if (p + 9 > bytes.length) return undefined;
      return sized("jpeg", "image/jpeg", "jpeg", view.getUint16(p + 7), view.getUint16(p + 5));
    }
    p += 2 + length;
  }
  return undefined;
}

function sized(format: ImageInfo["format"], contentType: string, extension: string, width: number, height: number): ImageInfo | undefined {
  return width > 0 && height > 0 ? { format, contentType, extension, width, height } : undefined;
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/** PixelSize is an image's width and height in pixels as its header declares them. */
export interface PixelSize {
  format: "png" | "jpeg" | "gif" | "bmp" | "tiff" | "webp";
  width: number;
  height: number;
}

/** isImageHeader tells whether bytes start like a PNG, JPEG, GIF, BMP, TIFF or WebP file (its size may lie further in). */
export function isImageHeader(bytes: Uint8Array): boolean {
  if (bytes.length < 4) return false;
  const [a, b, c, d] = [bytes[0], bytes[1], bytes[2], bytes[3]];
  return (
    (a === 0x89 && b === 0x50 && c === 0x4e && d === 0x47) ||
    (a === 0xff && b === 0xd8 && c === 0xff) ||
    (a === 0x47 && b === 0x49 && c === 0x46) ||
    (a === 0x42 && b === 0x4d) ||
    (a === 0x49 && b === 0x49 && c === 0x2a && d === 0) ||
    (a === 0x4d && b === 0x4d && c === 0 && d === 0x2a) ||
    (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP")
  );
}

/**
 * readPixelSize reads the declared pixel size of a PNG, JPEG, GIF, BMP, TIFF (first image
 * directory) or WebP (LibreOffice decodes it since 7.4) from its header: what a decoder will allocate for. Undefined when the bytes are none
 * of these or the header lies beyond them.
 */
export function readPixelSize(bytes: Uint8Array): PixelSize | undefined {
  // PNG, JPEG and GIF as annotate reads them, but without the "> 0" filter: a 0 x N image is no bomb either.
  const info = readImageInfo(bytes);
  if (info) return { format: info.format, width: info.width, height: info.height };
  const webp = readWebpSize(bytes);
  if (webp) return { format: "webp", width: webp.width, height: webp.height };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length >= 26 && bytes[0] === 0x42 && bytes[1] === 0x4d) {
    const headerSize = view.getUint32(14, true);
    // BITMAPCOREHEADER (OS/2) has 16-bit sizes; the others signed 32-bit (negative height: top-down).
    if (headerSize === 12) return { format: "bmp", width: view.getUint16(18, true), height: view.getUint16(20, true) };
    return { format: "bmp", width: Math.abs(view.getInt32(18, true)), height: Math.abs(view.getInt32(22, true)) };
  }
  if (bytes.length >= 8 && ((bytes[0] === 0x49 && bytes[1] === 0x49) || (bytes[0] === 0x4d && bytes[1] === 0x4d)) && isImageHeader(bytes)) {
    return readTiff(view, bytes[0] === 0x49);
  }
  return undefined;
}

function readTiff(view: DataView, little: boolean): PixelSize | undefined {
  const ifd = view.getUint32(4, little);
  if (ifd + 2 > view.byteLength) return undefined;
  const count = view.getUint16(ifd, little);
  let width: number | undefined;
  let height: number | undefined;
  for (let i = 0; i < count; i++) {
    const at = ifd + 2 + i * 12;
    if (at + 12 > view.byteLength) return undefined;
    const tag = view.getUint16(at, little);
    if (tag !== 256 && tag !== 257) continue;
    const type = view.getUint16(at + 2, little);
    const value = type === 3 ? view.getUint16(at + 8, little) : view.getUint32(at + 8, little);
    if (tag === 256) width = value;
    else height = value;
  }
  return width !== undefined && height !== undefined ? { format: "tiff", width, height } : undefined;
}

/** ImageFormat is every picture format an image value may be in, decided by its bytes. */
export type ImageFormat = ImageInfo["format"] | "webp" | "svg";

/**
 * sniffImageFormat decides a picture's format by its bytes alone (never by a claimed type): the
 * PNG, JPEG and GIF signatures, RIFF....WEBP, or text whose first markup is an <svg> root (after an
 * optional byte order mark, XML declaration, comments and document type, which the SVG reader refuses).
 */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  const info = readImageInfo(bytes);
  if (info) return info.format;
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP") return "webp";
  const head = new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 4096)).replace(/^\uFEFF/, "");
  if (/^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*|<!DOCTYPE[^>[]*(\[[\s\S]*?\])?\s*>\s*)*<svg[\s>/]/i.test(head)) return "svg";
  return undefined;
}

/**
 * readWebpSize reads the canvas size a WebP declares, before anything decodes it: the VP8X header
 * (extended format: alpha, animation, which it flags), the VP8L header (lossless) or the VP8 key frame (lossy).
 * Undefined when the bytes are no WebP or the header is cut short.
 */
export function readWebpSize(bytes: Uint8Array): { width: number; height: number; animated?: true } | undefined {
  if (bytes.length < 30 || ascii(bytes, 0, 4) !== "RIFF" || ascii(bytes, 8, 12) !== "WEBP") return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunk = ascii(bytes, 12, 16);
  const uint24 = (at: number) => view.getUint16(at, true) | (bytes[at + 2]! << 16);
  if (chunk === "VP8X") {
    const size = { width: uint24(24) + 1, height: uint24(27) + 1 };
    return bytes[20]! & 0x02 ? { ...size, animated: true } : size; // the VP8X animation flag
  }
  if (chunk === "VP8L") {
    if (bytes[20] !== 0x2f) return undefined;
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8 ") {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return undefined;
    const width = view.getUint16(26, true) & 0x3fff;
    const height = view.getUint16(28, true) & 0x3fff;
    return width > 0 && height > 0 ? { width, height } : undefined;
  }
  return undefined;
}

function megapixels(pixels: number): string {
  return `${Number((pixels / 1_000_000).toFixed(1))} megapixels`;
}

/**
 * checkImagePixels refuses an image whose width x height is over the limit (IMAGE_TOO_LARGE, 413):
 * a decoder or renderer allocates for every pixel. `where` names the image in the message, `field`
 * the request member in the details.
 */
export function checkImagePixels(size: { width: number; height: number }, maxPixels: number, where: string, field: string): void {
  const width = Math.ceil(size.width);
  const height = Math.ceil(size.height);
  const pixels = width * height;
  if (pixels <= maxPixels) return;
  throw new SignetError(
    "IMAGE_TOO_LARGE",
    `The image ${where} is ${width} x ${height} pixels (${megapixels(pixels)}); the limit is ${megapixels(maxPixels)} per image. Scale it down and try again.`,
    { details: [{ field, issue: `${where}: ${width} x ${height} px, over ${maxPixels} pixels` }] },
  );
}
