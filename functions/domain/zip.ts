import { SignetError } from "#domain/errors.ts";

/** ZipEntry is one central-directory record of a zip file. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  encrypted: boolean;
}

/** ZipLimits are the zip-bomb guards (SPEC 7). */
export interface ZipLimits {
  maxEntries: number;
  maxUncompressedBytes: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;

/** isZip tells whether bytes start with a zip local file header. */
export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;
}

/**
 * readZipDirectory lists a zip's entries from its central directory without inflating anything,
 * and enforces the entry-count and declared-size limits before any caller decompresses.
 * Declared sizes can lie; callers must still cap actual inflation per entry (zlib maxOutputLength).
 */
export function readZipDirectory(bytes: Uint8Array, limits: ZipLimits, what = "document"): ZipEntry[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const invalid = (why: string) => new SignetError("INVALID_DOCUMENT", `The ${what} is not a valid zip package (${why}).`);
  // The end-of-central-directory record sits in the last 22 + 65535 bytes.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw invalid("no end of central directory");
  const count = view.getUint16(eocd + 10, true);
  const size = view.getUint32(eocd + 12, true);
  const offset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || offset === 0xffffffff) throw invalid("zip64 packages are not supported");
  if (count > limits.maxEntries) {
    throw new SignetError("PAYLOAD_TOO_LARGE", `The ${what} has ${count} zip entries; the limit is ${limits.maxEntries}.`);
  }
  if (offset + size > eocd) throw invalid("central directory out of bounds");
  const decoder = new TextDecoder();
  const entries: ZipEntry[] = [];
  let total = 0;
  let p = offset;
  for (let n = 0; n < count; n++) {
    if (p + 46 > eocd || view.getUint32(p, true) !== CENTRAL) throw invalid("broken central directory");
    const flags = view.getUint16(p + 8, true);
    const nameLength = view.getUint16(p + 28, true);
    const extraLength = view.getUint16(p + 30, true);
    const commentLength = view.getUint16(p + 32, true);
    const entry: ZipEntry = {
      name: decoder.decode(bytes.subarray(p + 46, p + 46 + nameLength)),
      method: view.getUint16(p + 10, true),
      compressedSize: view.getUint32(p + 20, true),
      uncompressedSize: view.getUint32(p + 24, true),
      localHeaderOffset: view.getUint32(p + 42, true),
      encrypted: (flags & 1) === 1,
    };
    total += entry.uncompressedSize;
    if (total > limits.maxUncompressedBytes) {
      throw new SignetError(
        "PAYLOAD_TOO_LARGE",
        `The ${what} unpacks to more than ${Math.floor(limits.maxUncompressedBytes / 1024 / 1024)} MB; it is refused as a possible zip bomb.`,
      );
    }
    entries.push(entry);
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
