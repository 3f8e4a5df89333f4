import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { deflateSync } from "node:zlib";

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** makePng draws a solid-colour RGB PNG of the given pixel size. */
export function makePng(width: number, height: number, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = Buffer.alloc(1 + width * 3);
  for (let x = 0; x < width; x++) row.set(rgb, 1 + x * 3);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** makeGifHeader is the start of a GIF with the given logical screen size (enough for header readers). */
export function makeGifHeader(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(13);
  bytes.write("GIF89a", 0, "latin1");
  bytes.writeUInt16LE(width, 6);
  bytes.writeUInt16LE(height, 8);
  return bytes;
}

/** makeJpegHeader is a JPEG start with an APP0 segment and a baseline frame header of the given size. */
export function makeJpegHeader(width: number, height: number): Buffer {
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof, Buffer.from([0xff, 0xd9])]);
}

/** dataUri encodes bytes as a base64 data URI. */
export const dataUri = (bytes: Uint8Array, type = "image/png") => `data:${type};base64,${Buffer.from(bytes).toString("base64")}`;

let webpEncoder: Promise<(data: { data: Uint8ClampedArray; width: number; height: number }, options: object) => Promise<ArrayBuffer>> | undefined;

/**
 * makeWebp encodes a gradient (alpha 255 on the left half, 100 on the right with `alpha`) as WebP
 * with libwebp's own encoder (@jsquash/webp, the package Signet decodes with): lossy without alpha
 * is a plain VP8 file, lossy with alpha a VP8X one, lossless a VP8L one.
 */
export async function makeWebp(width: number, height: number, options: { lossless?: boolean; alpha?: boolean } = {}): Promise<Buffer> {
  webpEncoder ??= (async () => {
    const { default: encode, init } = await import("@jsquash/webp/encode.js");
    const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<unknown> } }).WebAssembly;
    const path = createRequire(import.meta.url).resolve("@jsquash/webp/codec/enc/webp_enc_simd.wasm");
    await init((await wasm.compile(readFileSync(path))) as Parameters<typeof init>[0]);
    return encode as never;
  })();
  const data = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data.set([Math.round((x * 255) / width), Math.round((y * 255) / height), 160, options.alpha && x >= width / 2 ? 100 : 255], i);
    }
  }
  const encode = await webpEncoder;
  return Buffer.from(await encode({ data, width, height }, options.lossless ? { lossless: 1 } : { quality: 80 }));
}

/** makeWebpHeader is a VP8X WebP header declaring a canvas of the given size, with no picture data. */
export function makeWebpHeader(width: number, height: number): Buffer {
  const bytes = Buffer.alloc(30);
  bytes.write("RIFF", 0, "latin1");
  bytes.writeUInt32LE(22, 4);
  bytes.write("WEBPVP8X", 8, "latin1");
  bytes.writeUInt32LE(10, 16);
  bytes.writeUIntLE(width - 1, 24, 3);
  bytes.writeUIntLE(height - 1, 27, 3);
  return bytes;
}

/** makeSvg is a small SVG signature: a stroked curve and a name drawn as text, `width` x `height` px. */
export function makeSvg(width = 300, height = 100, extra = ""): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 300 100">` +
    `<path d="M10 80 C 40 10, 65 10, 95 80 S 150 150, 180 80" stroke="#1040c0" stroke-width="4" fill="none"/>` +
    `<text x="190" y="60" font-size="24" fill="#1040c0">Ada L.</text>${extra}</svg>`
  );
}
