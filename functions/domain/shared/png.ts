import { promisify } from "node:util";
import { crc32, deflate } from "node:zlib";

const deflateAsync = promisify(deflate);

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "latin1");
  out.set(data, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * encodePng writes 8-bit RGBA pixels (row after row, 4 bytes each) as a PNG: no filter, zlib at its
 * default level, on the thread pool (a 100-megapixel picture is 400 MB to compress). Lossless, so a
 * picture converted to PNG looks as it was decoded.
 */
export async function encodePng(rgba: Uint8Array, width: number, height: number): Promise<Buffer> {
  const stride = width * 4;
  if (rgba.length < stride * height) throw new Error(`encodePng: ${rgba.length} bytes for ${width} x ${height} RGBA`);
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1); // filter byte 0: none
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  return Buffer.concat([SIGNATURE, chunk("IHDR", header), chunk("IDAT", await deflateAsync(raw)), chunk("IEND", new Uint8Array(0))]);
}
