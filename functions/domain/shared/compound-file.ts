import { SignetError } from "#domain/shared/errors.ts";
import { TimeSlice } from "#domain/shared/time-slice.ts";

/**
 * The one reader for the Compound File Binary format ([MS-CFB]) that Word, Excel and PowerPoint
 * 97-2003 files (and encrypted OOXML packages) are stored in: a
 * little file system of sectors whose streams (WordDocument, 1Table, Data, ...) are chains in a
 * sector allocation table, small streams in a mini stream of 64-byte sectors. Only what reading
 * every stream needs; chains are bounded and a loop or a sector outside the file is refused.
 *
 * Streams share no sectors in a real file. Each stream is read for at most the size it declares,
 * and a sector (or mini sector) that a second chain reaches is refused as damage, so what is copied
 * never exceeds the file: pointed at one long chain, 100 entries of a 21 MB file used to copy it
 * 100 times (19.6 s of the event loop, 2.5 GB). The walk pauses when its turn has run out.
 */

const SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const END_OF_CHAIN = 0xfffffffe;
const FREE = 0xffffffff;
const HEADER_DIFAT = 109;

/** isCompoundFile tells whether bytes start with the compound file signature. */
export function isCompoundFile(bytes: Uint8Array): boolean {
  return bytes.length >= 512 && Buffer.from(bytes.buffer, bytes.byteOffset, 8).equals(SIGNATURE);
}

/** damaged is the error for a compound file whose structure cannot be followed. */
function damaged(what: string, reason: string): SignetError {
  return new SignetError("INVALID_DOCUMENT", `The ${what} is damaged (${reason}); save it again from a word processor and upload it again.`);
}

/** Sectors are the file's sectors after its header: one by index, or a chain of them through a table. */
class Sectors {
  readonly size: number;
  readonly count: number;
  /** The sectors a chain has already taken (each belongs to one chain at most). */
  private readonly taken: Uint8Array;

  constructor(
    readonly data: Buffer,
    shift: number,
    readonly what: string,
    readonly slice: TimeSlice,
  ) {
    if (shift !== 9 && shift !== 12) throw damaged(what, "unknown sector size");
    this.size = 1 << shift;
    this.count = Math.max(0, Math.ceil((data.length - this.size) / this.size));
    this.taken = new Uint8Array(this.count);
  }

  sector(index: number): Buffer {
    const start = (index + 1) * this.size;
    if (index >= this.count || start >= this.data.length) throw damaged(this.what, `sector ${index} lies outside the file`);
    return this.data.subarray(start, Math.min(start + this.size, this.data.length));
  }

  /**
   * chain follows a chain of sectors through a table for at most `limit` sectors, marking each in
   * `taken`: an index outside the table, or a sector taken already (by this chain: a loop; by
   * another: shared) is refused.
   */
  async chain(table: Uint32Array, start: number, limit: number, taken: Uint8Array): Promise<number[]> {
    const out: number[] = [];
    for (let at = start; at !== END_OF_CHAIN && at !== FREE && out.length < limit; at = table[at]!) {
      if (at >= table.length) throw damaged(this.what, "a sector chain leaves the file");
      if (taken[at]) throw damaged(this.what, "a sector chain loops, or two streams share a sector");
      taken[at] = 1;
      out.push(at);
      if ((out.length & 0x3ff) === 0 && this.slice.due()) await this.slice.pause();
    }
    return out;
  }

  /** read copies the chain from `start` for at most `size` bytes, taking its sectors. */
  async read(fat: Uint32Array, start: number, size: number): Promise<Buffer> {
    const chain = await this.chain(fat, start, Math.ceil(Math.min(size, this.data.length) / this.size), this.taken);
    const out = Buffer.alloc(Math.min(size, chain.length * this.size));
    for (const [i, index] of chain.entries()) this.sector(index).copy(out, i * this.size, 0, Math.min(this.size, out.length - i * this.size));
    return out;
  }
}

/** readFat reads the sector allocation table from the header's DIFAT entries and the DIFAT sectors. */
function readFat(sectors: Sectors, header: Buffer): Uint32Array {
  const fatSectors = header.readUInt32LE(44);
  const locations: number[] = [];
  for (let i = 0; i < HEADER_DIFAT && locations.length < fatSectors; i++) locations.push(header.readUInt32LE(76 + i * 4));
  let difat = header.readUInt32LE(68);
  for (let hops = 0; locations.length < fatSectors && difat !== END_OF_CHAIN && difat !== FREE; hops++) {
    if (hops > sectors.count) throw damaged(sectors.what, "the DIFAT loops");
    const sector = sectors.sector(difat);
    const per = sectors.size / 4 - 1;
    for (let i = 0; i < per && locations.length < fatSectors; i++) locations.push(sector.readUInt32LE(i * 4));
    difat = sector.readUInt32LE(per * 4);
  }
  if (locations.length < fatSectors || fatSectors > sectors.count) throw damaged(sectors.what, "the allocation table is incomplete");
  const fat = new Uint32Array((fatSectors * sectors.size) / 4);
  locations.forEach((location, i) => {
    const sector = sectors.sector(location);
    for (let j = 0; j < sector.length / 4; j++) fat[(i * sectors.size) / 4 + j] = sector.readUInt32LE(j * 4);
  });
  return fat;
}

/** DirectoryEntry is one directory entry: type 1 storage, 2 stream, 5 root. */
interface DirectoryEntry {
  name: string;
  type: number;
  start: number;
  size: number;
}

/** readDirectory lists the directory's entries (storages, streams, the root). */
async function readDirectory(sectors: Sectors, fat: Uint32Array, start: number): Promise<DirectoryEntry[]> {
  const directory = await sectors.read(fat, start, Number.MAX_SAFE_INTEGER);
  const entries: DirectoryEntry[] = [];
  for (let at = 0; at + 128 <= directory.length; at += 128) {
    const nameLength = Math.min(64, directory.readUInt16LE(at + 64));
    const type = directory[at + 66]!;
    if (type === 0 || nameLength < 2) continue;
    const name = directory.toString("utf16le", at, at + nameLength - 2);
    const size = sectors.size === 512 ? directory.readUInt32LE(at + 120) : Number(directory.readBigUInt64LE(at + 120));
    entries.push({ name, type, start: directory.readUInt32LE(at + 116), size });
  }
  return entries;
}

/** CompoundStream is one stream of a compound file: its name (not its storage's) and its bytes. */
export interface CompoundStream {
  name: string;
  bytes: Buffer;
}

/** CompoundKind is what a compound file holds, as far as Signet cares (see CompoundFile.kind). */
export type CompoundKind = "encrypted" | "word" | "other";

/**
 * CompoundFile is a compound file opened once: header, allocation table (FAT with its DIFAT
 * chain), directory. Its streams are read at most once, on first use, and kept: every check that
 * needs them (linking fields, pictures) takes them from here.
 */
export class CompoundFile {
  #streams: Promise<CompoundStream[]> | undefined;

  private constructor(
    private readonly sectors: Sectors,
    private readonly fat: Uint32Array,
    private readonly header: Buffer,
    /** The directory's entries (storages, streams, the root), in directory order. */
    readonly entries: readonly DirectoryEntry[],
  ) {}

  /**
   * open reads the header, the allocation table (all of it: the header's 109 entries and the
   * DIFAT sectors after them) and the directory; a structure that cannot be followed is
   * INVALID_DOCUMENT naming `what`.
   */
  static async open(bytes: Uint8Array, what: string, slice = new TimeSlice()): Promise<CompoundFile> {
    if (!isCompoundFile(bytes)) throw damaged(what, "no compound file header");
    const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const header = data.subarray(0, 512);
    const sectors = new Sectors(data, header.readUInt16LE(30), what, slice);
    const fat = readFat(sectors, header);
    const entries = await readDirectory(sectors, fat, header.readUInt32LE(48));
    return new CompoundFile(sectors, fat, header, entries);
  }

  /** names lists the directory's entry names (streams and storages). */
  get names(): string[] {
    return this.entries.map((entry) => entry.name);
  }

  /**
   * kind tells an encrypted Office file (an OOXML package under EncryptedPackage/EncryptionInfo,
   * or a Word 97 file whose FIB has fEncrypted set) from a plain Word 97-2003 document and from
   * any other compound file.
   */
  kind(): CompoundKind {
    const names = this.names;
    if (names.includes("EncryptedPackage") || names.includes("EncryptionInfo")) return "encrypted";
    if (!names.includes("WordDocument")) return "other";
    return this.wordEncrypted() ? "encrypted" : "word";
  }

  /**
   * wordEncrypted reads the FIB at the start of the WordDocument stream: wIdent 0xA5EC, then at
   * 0x0A the flags word whose bit 8 is fEncrypted. Undefined when the stream is not there or too
   * small to be Word's (small streams live in the mini stream; Word's never do).
   */
  wordEncrypted(): boolean | undefined {
    const word = this.entries.find((entry) => entry.type === 2 && entry.name === "WordDocument");
    if (!word || word.size < 4096 || word.size < this.header.readUInt32LE(56)) return undefined;
    let first: Buffer;
    try {
      first = this.sectors.sector(word.start);
    } catch {
      return undefined;
    }
    if (first.length < 12 || first[0] !== 0xec || first[1] !== 0xa5) return undefined;
    return ((first[0x0b] ?? 0) & 0x01) === 1;
  }

  /**
   * streams returns every stream in directory order, each cut to its size, those of embedded
   * objects' storages too (names may repeat). Read once; a chain that cannot be followed is
   * INVALID_DOCUMENT. Together the streams copy at most the file's bytes (see above).
   */
  streams(): Promise<CompoundStream[]> {
    this.#streams ??= this.#readStreams();
    return this.#streams;
  }

  async #readStreams(): Promise<CompoundStream[]> {
    const { sectors, fat, header } = this;
    const root = this.entries.find((entry) => entry.type === 5);
    const cutoff = header.readUInt32LE(56);
    const mini = root && root.size > 0 ? await sectors.read(fat, root.start, root.size) : Buffer.alloc(0);
    const miniFat = await readMiniFat(sectors, fat, header);
    const streams = this.entries.filter((entry) => entry.type === 2);
    // Streams share no sectors, so together they hold at most the file.
    if (streams.reduce((sum, entry) => sum + entry.size, 0) > sectors.data.length)
      throw damaged(sectors.what, "its streams claim more bytes than the file holds");
    const miniTaken = new Uint8Array(Math.ceil(mini.length / 64));
    const out: CompoundStream[] = [];
    for (const entry of streams) {
      const stream = entry.size < cutoff ? await readMiniChain(mini, miniFat, entry, sectors, miniTaken) : await sectors.read(fat, entry.start, entry.size);
      out.push({ name: entry.name, bytes: stream });
    }
    return out;
  }
}

/** readCompoundStreams opens a compound file and reads all its streams (CompoundFile.streams). */
export async function readCompoundStreams(bytes: Uint8Array, what: string, slice = new TimeSlice()): Promise<CompoundStream[]> {
  return (await CompoundFile.open(bytes, what, slice)).streams();
}

/** readMiniFat reads the mini stream's allocation table (empty when the file has none). */
async function readMiniFat(sectors: Sectors, fat: Uint32Array, header: Buffer): Promise<Uint32Array> {
  const start = header.readUInt32LE(60);
  if (start === END_OF_CHAIN || start === FREE) return new Uint32Array(0);
  const table = await sectors.read(fat, start, Number.MAX_SAFE_INTEGER);
  const miniFat = new Uint32Array(table.length >> 2);
  for (let i = 0; i < miniFat.length; i++) miniFat[i] = table.readUInt32LE(i * 4);
  return miniFat;
}

/** readMiniChain copies a small stream's 64-byte sectors from the mini stream, at most its size, taking them. */
async function readMiniChain(mini: Buffer, miniFat: Uint32Array, entry: DirectoryEntry, sectors: Sectors, taken: Uint8Array): Promise<Buffer> {
  if (entry.size === 0) return Buffer.alloc(0);
  const chain = await sectors.chain(miniFat, entry.start, Math.ceil(entry.size / 64), taken);
  const out = Buffer.alloc(Math.min(entry.size, chain.length * 64));
  chain.forEach((index, i) => {
    if ((index + 1) * 64 > mini.length) throw damaged(sectors.what, `mini sector ${index} lies outside the mini stream`);
    mini.copy(out, i * 64, index * 64, index * 64 + Math.min(64, out.length - i * 64));
  });
  return out;
}
