import { TimeSlice } from "#domain/shared/time-slice.ts";
import { crc32, createInflateRaw, deflateRaw, inflateRaw, inflateRawSync, type ZlibOptions } from "node:zlib";
import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/** ZipEntry is one central-directory record of a zip file. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
  encrypted: boolean;
}

/** ZipLimits are the zip-bomb guards (the limits in docs/configuration.md). */
export interface ZipLimits {
  maxEntries: number;
  maxUncompressedBytes: number;
}

const EOCD = 0x06054b50;

// How many central directories readZipDirectory has parsed in this process (ZipContainer.directoriesRead).
let directoriesRead = 0;
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
  directoriesRead++;
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
    if (p + 46 + nameLength + extraLength + commentLength > eocd) throw invalid("broken central directory");
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
        `The ${what} unpacks to more than ${formatBytes(limits.maxUncompressedBytes)}; it is refused as a possible zip bomb.`,
      );
    }
    entries.push(entry);
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * ZipContainer is a zip package whose central directory was read once (readZipDirectory, with the
 * entry-count and declared-size limits): every check and the converter take the entries from it
 * instead of parsing the directory again.
 */
export class ZipContainer {
  private constructor(
    readonly bytes: Uint8Array,
    readonly entries: readonly ZipEntry[],
  ) {}

  /** open reads the central directory of `bytes` within `limits` (errors as readZipDirectory's, naming `what`). */
  static open(bytes: Uint8Array, limits: ZipLimits, what = "document"): ZipContainer {
    return new ZipContainer(bytes, readZipDirectory(bytes, limits, what));
  }

  /** directoriesRead is how many zip central directories this process has parsed (how tests pin "read once"). */
  static get directoriesRead(): number {
    return directoriesRead;
  }

  /** entry is the entry of that name, or undefined. */
  entry(name: string): ZipEntry | undefined {
    return this.entries.find((entry) => entry.name === name);
  }

  /** has tells whether an entry of that name exists. */
  has(name: string): boolean {
    return this.entry(name) !== undefined;
  }
}

const LOCAL = 0x04034b50;

/**
 * unsafeEntryName says why a zip entry name must not be passed on (undefined when it is fine): an
 * absolute path, a drive letter, a backslash, a NUL or other control character, or a "." or ".."
 * segment could write outside the folder of whoever unpacks the file (zip slip). Package part
 * names (OPC) never contain any of these.
 */
export function unsafeEntryName(name: string): string | undefined {
  if (name.startsWith("/")) return "is an absolute path";
  if (/^[A-Za-z]:/.test(name)) return "starts with a drive letter";
  if (name.includes("\\")) return "contains a backslash";
  if (/[\u0000-\u001f\u007f]/.test(name)) return "contains a NUL or control character";
  if (name.split("/").some((segment) => segment === ".." || segment === ".")) return 'has a "." or ".." segment';
  return undefined;
}

/**
 * entryData returns the compressed bytes of one entry after checking its local header: the
 * signature, the name and extra fields and the compressed range must all lie inside the buffer,
 * the entry must not be encrypted and must use stored (0) or deflate (8).
 */
function entryData(bytes: Uint8Array, entry: ZipEntry, what: string): Uint8Array {
  const invalid = (why: string) => new SignetError("INVALID_DOCUMENT", `The ${what} is not a valid zip package (entry ${entry.name} ${why}).`);
  if (entry.encrypted) throw new SignetError("ENCRYPTED_DOCUMENT", `The ${what} has encrypted entries; remove the password and save it again.`);
  if (entry.method !== 0 && entry.method !== 8) throw invalid(`uses unsupported compression method ${entry.method}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localHeaderOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL) throw invalid("has no local header");
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (start > bytes.length || end > bytes.length) throw invalid("is truncated");
  if (entry.method === 0 && entry.compressedSize !== entry.uncompressedSize) throw invalid("is stored with two different sizes");
  return bytes.subarray(start, end);
}

function tooLarge(what: string, name: string): SignetError {
  return new SignetError(
    "PAYLOAD_TOO_LARGE",
    `The ${what} entry ${name} inflates beyond its declared size or the size limit; it is refused as a possible zip bomb.`,
  );
}

function sizeMismatch(what: string, name: string): SignetError {
  return new SignetError("INVALID_DOCUMENT", `The ${what} is not a valid zip package (entry ${name} does not match its declared size).`);
}

/**
 * readZipEntry returns one entry's bytes, with every offset checked against the buffer. Inflation
 * is capped (zlib maxOutputLength) at the declared size: an entry that inflates to more than it
 * declares, or declares more than maxBytes, is PAYLOAD_TOO_LARGE; a broken entry INVALID_DOCUMENT.
 */
export function readZipEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number, what = "document"): Buffer {
  const raw = entryData(bytes, entry, what);
  if (entry.uncompressedSize > maxBytes) throw tooLarge(what, entry.name);
  if (entry.method === 0) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  let data: Buffer;
  try {
    // maxOutputLength 0 would mean "no cap": an empty entry gets a cap of 1 and the size check below.
    data = inflateRawSync(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize) });
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(what, entry.name);
    throw new SignetError("INVALID_DOCUMENT", `The ${what} is not a valid zip package (entry ${entry.name} cannot be inflated).`);
  }
  if (data.length !== entry.uncompressedSize) throw sizeMismatch(what, entry.name);
  return data;
}

/**
 * readZipEntryAsync is readZipEntry with the inflation done on libuv's thread pool, so a large
 * entry never holds the event loop (same caps, same errors).
 */
export async function readZipEntryAsync(bytes: Uint8Array, entry: ZipEntry, maxBytes: number, what = "document"): Promise<Buffer> {
  const raw = entryData(bytes, entry, what);
  if (entry.uncompressedSize > maxBytes) throw tooLarge(what, entry.name);
  if (entry.method === 0) return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const data = await new Promise<Buffer>((resolve, reject) => {
    inflateRaw(raw, { maxOutputLength: Math.max(1, entry.uncompressedSize) } as ZlibOptions, (error, result) => {
      if (!error) return resolve(result);
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") reject(tooLarge(what, entry.name));
      else reject(new SignetError("INVALID_DOCUMENT", `The ${what} is not a valid zip package (entry ${entry.name} cannot be inflated).`));
    });
  });
  if (data.length !== entry.uncompressedSize) throw sizeMismatch(what, entry.name);
  return data;
}

/** ZipInput is one file to write into a zip: its name and bytes. */
export interface ZipInput {
  name: string;
  data: Uint8Array;
  /** Store without compression (an OpenDocument's mimetype entry must be). */
  stored?: boolean;
}

// Entries ZipWriter compresses at once (libuv's thread pool has four threads).
const IN_FLIGHT = 4;

/** compressEntry is an entry's bytes as the zip holds them: deflated on libuv's thread pool, or as they are when stored. */
function compressEntry(entry: ZipInput, options: ZlibOptions = {}): Promise<Buffer> {
  if (entry.stored) return Promise.resolve(Buffer.from(entry.data.buffer, entry.data.byteOffset, entry.data.byteLength));
  return new Promise<Buffer>((resolve, reject) => deflateRaw(entry.data, options, (error, result) => (error ? reject(error) : resolve(result))));
}

/**
 * ZipWriter builds a zip (DEFLATE, no zip64) one entry at a time: an added entry is compressed on
 * libuv's thread pool and its checksum taken a few megabytes at a time with pauses, and only its
 * compressed bytes and headers are kept, so a caller that makes entries one after another (split's
 * parts) never holds them all. Names are written as UTF-8 (general purpose flag bit 11).
 */
export class ZipWriter {
  readonly #chunks: Buffer[] = [];
  readonly #central: Buffer[] = [];
  readonly #slice = new TimeSlice();
  // Entries being compressed, in order: the next part is made while the last ones deflate.
  readonly #queue: Array<Promise<[ZipInput, Buffer, number]>> = [];
  #offset = 0;
  #count = 0;

  /** `level` is zlib's compression level (1 fastest, 9 smallest; zlib's default 6). */
  constructor(private readonly options: { level?: number } = {}) {}

  /** add starts compressing one entry; it waits only when IN_FLIGHT entries are being compressed. */
  async add(entry: ZipInput): Promise<void> {
    const compressed = Promise.all([entry, compressEntry(entry, this.options), crc32InSlices(entry.data, this.#slice)] as const);
    // Awaited by #drainOne; marked handled here so a failure waits for that await instead of ending the process.
    compressed.catch(() => undefined);
    this.#queue.push(compressed);
    if (this.#queue.length >= IN_FLIGHT) await this.#drainOne();
  }

  async #drainOne(): Promise<void> {
    const [entry, data, crc] = await this.#queue.shift()!;
    this.append(entry, data, crc);
  }

  /** append writes an entry already compressed (`data`) with the checksum of its uncompressed bytes. */
  append(entry: ZipInput, data: Buffer, crc: number): void {
    const name = Buffer.from(entry.name, "utf8");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(LOCAL, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(entry.stored ? 0 : 8, 8); // stored or deflate
    local.writeUInt32LE(0x00210000, 10); // DOS time and date: 1980-01-01 00:00
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(entry.data.byteLength, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(CENTRAL, 0);
    record.writeUInt16LE(20, 4); // made by: 2.0
    record.writeUInt16LE(20, 6);
    local.copy(record, 8, 6, 30); // flags, method, time, date, crc, sizes, name length, extra length
    record.writeUInt32LE(this.#offset, 42);
    this.#chunks.push(local, name, data);
    this.#central.push(record, name);
    this.#offset += local.length + name.length + data.length;
    this.#count++;
  }

  /** finish waits for the entries still compressing, writes the central directory and gives the whole zip. */
  async finish(): Promise<Buffer> {
    while (this.#queue.length > 0) await this.#drainOne();
    const directory = Buffer.concat(this.#central);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(EOCD, 0);
    end.writeUInt16LE(this.#count, 8);
    end.writeUInt16LE(this.#count, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(this.#offset, 16);
    return Buffer.concat([...this.#chunks, directory, end]);
  }
}

/**
 * writeZip builds a zip from entries known up front, in order: all compressed at once on libuv's
 * thread pool (a package of a few dozen parts), then written by ZipWriter.
 */
export async function writeZip(entries: readonly ZipInput[]): Promise<Buffer> {
  const compressed = await Promise.all(entries.map((entry) => compressEntry(entry)));
  const slice = new TimeSlice();
  const writer = new ZipWriter();
  for (const [index, entry] of entries.entries()) writer.append(entry, compressed[index]!, await crc32InSlices(entry.data, slice));
  return await writer.finish();
}

/** crc32InSlices is the CRC-32 of `data`, taken 4 MB at a time with a pause when the turn has run out. */
async function crc32InSlices(data: Uint8Array, slice: TimeSlice): Promise<number> {
  let crc = 0;
  for (let at = 0; at < data.byteLength || at === 0; at += 4 * 1024 * 1024) {
    if (at > 0 && slice.due()) await slice.pause();
    crc = crc32(data.subarray(at, at + 4 * 1024 * 1024), crc);
  }
  return crc;
}

/**
 * checkZipInflation inflates every entry, one at a time through a streaming inflater whose output
 * is counted and discarded (memory stays at one zlib window and chunk), and refuses an entry that
 * inflates to more than it declares and a package whose actual total exceeds maxUncompressedBytes.
 * readZipDirectory only checks the declared sizes; this is the check before a tool without such
 * a cap (LibreOffice) unpacks the file.
 */
export async function checkZipInflation(bytes: Uint8Array, entries: readonly ZipEntry[], limits: ZipLimits, what = "document"): Promise<void> {
  let total = 0;
  for (const entry of entries) {
    const raw = entryData(bytes, entry, what);
    const size = entry.method === 0 ? raw.length : await inflatedSize(raw, entry.uncompressedSize, what, entry.name);
    if (size !== entry.uncompressedSize) throw sizeMismatch(what, entry.name);
    total += size;
    if (total > limits.maxUncompressedBytes) {
      throw new SignetError(
        "PAYLOAD_TOO_LARGE",
        `The ${what} unpacks to more than ${formatBytes(limits.maxUncompressedBytes)}; it is refused as a possible zip bomb.`,
      );
    }
  }
}

// Streams raw through an inflater, counting output bytes and stopping as soon as they pass cap.
function inflatedSize(raw: Uint8Array, cap: number, what: string, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
    let size = 0;
    let settled = false;
    const finish = (outcome: number | SignetError) => {
      if (settled) return;
      settled = true;
      if (typeof outcome === "number") resolve(outcome);
      else {
        inflater.destroy();
        reject(outcome);
      }
    };
    inflater.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) finish(tooLarge(what, name));
    });
    inflater.on("end", () => finish(size));
    inflater.on("error", () => finish(new SignetError("INVALID_DOCUMENT", `The ${what} is not a valid zip package (entry ${name} cannot be inflated).`)));
    inflater.end(raw);
  });
}

/**
 * readZipEntryHead returns the first `length` bytes of an entry (fewer when it is shorter),
 * inflating only as far as needed: enough to read an image header without unpacking the image.
 */
export async function readZipEntryHead(bytes: Uint8Array, entry: ZipEntry, length: number, what = "document"): Promise<Buffer> {
  const raw = entryData(bytes, entry, what);
  if (entry.method === 0) return Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, length));
  return new Promise((resolve, reject) => {
    const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error?: SignetError) => {
      if (settled) return;
      settled = true;
      inflater.destroy();
      if (error) reject(error);
      else resolve(Buffer.concat(chunks).subarray(0, length));
    };
    inflater.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= length) finish();
    });
    inflater.on("end", () => finish());
    inflater.on("error", () => finish(new SignetError("INVALID_DOCUMENT", `The ${what} is not a valid zip package (entry ${entry.name} cannot be inflated).`)));
    inflater.end(raw);
  });
}
