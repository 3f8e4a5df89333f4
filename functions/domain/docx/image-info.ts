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
