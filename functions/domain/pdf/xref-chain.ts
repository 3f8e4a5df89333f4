import { deflateSync, inflateSync } from "node:zlib";

/**
 * Signet's own reader of a PDF's cross-reference chain (ISO 32000-1 7.5.4, 7.5.8): classic tables,
 * cross-reference streams with any field widths, /XRefStm of hybrid files, /Prev. libpdf 0.4.2
 * refuses stream fields wider than 6 bytes (pyHanko writes /W [1 8 2]; the standard sets no limit)
 * and then rebuilds the file by brute force; openPdf uses this reader for those files only.
 */

/** XrefEntry is one cross-reference entry: type 0 free, 1 at a byte offset, 2 inside an object stream. */
export interface XrefEntry {
  type: number;
  /** Type 1: the byte offset; type 2: the object stream's number. */
  field2: number;
  /** Type 1: the generation; type 2: the index inside the object stream. */
  field3: number;
}

/** XrefChain is the whole chain as read from startxref, newest section first. */
export interface XrefChain {
  /** The offset startxref names (the newest section). */
  startxref: number;
  /** The newest section is a cross-reference stream. */
  newestIsStream: boolean;
  /** Every object's entry, the newest section winning. */
  entries: Map<number, XrefEntry>;
  /** Raw text of trailer values, newest first: /Root, /Info, /ID, /Encrypt (when present). */
  trailer: { root?: string; info?: string; id?: string; encrypt?: string };
  /** The largest field width of any cross-reference stream in the chain. */
  widestField: number;
  /** Some table names an /XRefStm (a hybrid-reference file). */
  hybrid: boolean;
}

const latin1 = (bytes: Uint8Array, start: number, end: number) =>
  Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, end - start)).toString("latin1");

/** dictEnd is the offset just after the `>>` closing the dictionary that opens at `start` (`<<`), skipping strings; -1 when unclosed. */
function dictEnd(bytes: Uint8Array, start: number): number {
  let depth = 0;
  for (let at = start; at < bytes.length; at++) {
    const byte = bytes[at];
    if (byte === 0x28) {
      // A literal string: balanced parentheses, backslash escapes.
      let nesting = 0;
      for (; at < bytes.length; at++) {
        if (bytes[at] === 0x5c) at++;
        else if (bytes[at] === 0x28) nesting++;
        else if (bytes[at] === 0x29 && --nesting === 0) break;
      }
    } else if (byte === 0x3c && bytes[at + 1] === 0x3c) {
      depth++;
      at++;
    } else if (byte === 0x3e && bytes[at + 1] === 0x3e) {
      depth--;
      at++;
      if (depth === 0) return at + 1;
    } else if (byte === 0x25) {
      while (at < bytes.length && bytes[at] !== 0x0a && bytes[at] !== 0x0d) at++; // a comment
    }
  }
  return -1;
}

const number = (text: string, key: string): number | undefined => {
  const match = new RegExp(`/${key}\\s+(\\d+)(?!\\s+\\d+\\s+R)`).exec(text);
  return match ? Number(match[1]) : undefined;
};

/** trailerValues reads the raw text of the trailer entries a rebuilt trailer needs. */
function trailerValues(text: string): XrefChain["trailer"] {
  const ref = (key: string) => new RegExp(`/${key}\\s+(\\d+\\s+\\d+\\s+R)`).exec(text)?.[1];
  const id = /\/ID\s*(\[[^\]]*\])/.exec(text)?.[1];
  const encrypt = /\/Encrypt\s*(\d+\s+\d+\s+R|<<)/.exec(text)?.[1];
  return {
    ...(ref("Root") ? { root: ref("Root") } : {}),
    ...(ref("Info") ? { info: ref("Info") } : {}),
    ...(id ? { id } : {}),
    ...(encrypt ? { encrypt } : {}),
  };
}

/** lastTrailerValues reads /Root, /Info, /ID and /Encrypt from the file's last `trailer` dictionary (empty when there is none). */
export function lastTrailerValues(bytes: Buffer): XrefChain["trailer"] {
  const at = bytes.lastIndexOf("trailer", undefined, "latin1");
  const start = at < 0 ? -1 : bytes.indexOf("<<", at, "latin1");
  const end = start < 0 || start > at + 64 ? -1 : dictEnd(bytes, start);
  return end < 0 ? {} : trailerValues(latin1(bytes, start, end));
}

/** pngUnpredict undoes the PNG predictors (/Predictor 10-15) on rows of `columns` bytes. */
function pngUnpredict(data: Buffer, columns: number): Buffer {
  const rowLength = columns + 1;
  if (data.length % rowLength !== 0) throw new Error("predicted data is not whole rows");
  const out = Buffer.alloc((data.length / rowLength) * columns);
  for (let row = 0; row * rowLength < data.length; row++) {
    const filter = data[row * rowLength]!;
    for (let column = 0; column < columns; column++) {
      const raw = data[row * rowLength + 1 + column]!;
      const left = column > 0 ? out[row * columns + column - 1]! : 0;
      const up = row > 0 ? out[(row - 1) * columns + column]! : 0;
      const upLeft = row > 0 && column > 0 ? out[(row - 1) * columns + column - 1]! : 0;
      let value: number;
      if (filter === 0) value = raw;
      else if (filter === 1) value = raw + left;
      else if (filter === 2) value = raw + up;
      else if (filter === 3) value = raw + ((left + up) >> 1);
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      } else throw new Error(`unknown PNG predictor ${filter}`);
      out[row * columns + column] = value & 0xff;
    }
  }
  return out;
}

interface Section {
  entries: Map<number, XrefEntry>;
  trailer: string;
  stream: boolean;
  widths?: number[];
}

/** readTable reads a classic table at `at` (the `xref` keyword): strict 20-byte entries. */
function readTable(bytes: Uint8Array, at: number): Section {
  const entries = new Map<number, XrefEntry>();
  const text = latin1(bytes, at, Math.min(bytes.length, at + 64));
  if (!/^xref\s/.test(text)) throw new Error("no xref keyword");
  let position = at + 4;
  const header = /^\s*(\d+)\s+(\d+)[ \t]*\r?\n?/;
  for (;;) {
    const ahead = latin1(bytes, position, Math.min(bytes.length, position + 64));
    const trailer = /^\s*trailer\s*<</.exec(ahead);
    if (trailer) {
      const start = position + trailer[0].length - 2;
      const end = dictEnd(bytes, start);
      if (end < 0) throw new Error("unclosed trailer");
      return { entries, trailer: latin1(bytes, start, end), stream: false };
    }
    const subsection = header.exec(ahead);
    if (!subsection) throw new Error("bad subsection header");
    const first = Number(subsection[1]);
    const count = Number(subsection[2]);
    position += subsection[0].length;
    for (let index = 0; index < count; index++) {
      const row = /^(\d{10}) (\d{5}) ([nf])(?: \r| \n|\r\n)/.exec(latin1(bytes, position, position + 20));
      if (!row) throw new Error("bad table entry");
      if (!entries.has(first + index)) entries.set(first + index, { type: row[3] === "n" ? 1 : 0, field2: Number(row[1]), field3: Number(row[2]) });
      position += 20;
    }
  }
}

/** readStream reads a cross-reference stream object at `at`. */
function readStream(bytes: Uint8Array, at: number): Section {
  const head = /^\d+\s+\d+\s+obj\s*<</.exec(latin1(bytes, at, Math.min(bytes.length, at + 64)));
  if (!head) throw new Error("no object at the offset");
  const start = at + head[0].length - 2;
  const end = dictEnd(bytes, start);
  if (end < 0) throw new Error("unclosed stream dictionary");
  const dict = latin1(bytes, start, end);
  if (!/\/Type\s*\/XRef\b/.test(dict)) throw new Error("not a cross-reference stream");
  const keyword = /^\s*stream(\r\n|\n|\r)/.exec(latin1(bytes, end, Math.min(bytes.length, end + 16)));
  const length = number(dict, "Length");
  if (!keyword || length === undefined) throw new Error("no stream data");
  const dataStart = end + keyword[0].length;
  if (dataStart + length > bytes.length) throw new Error("stream data truncated");
  let data = Buffer.from(bytes.buffer, bytes.byteOffset + dataStart, length);
  const filter = /\/Filter\s*(?:\[\s*)?\/(\w+)\s*\]?/.exec(dict)?.[1];
  if (filter === "FlateDecode") data = inflateSync(data);
  else if (filter !== undefined) throw new Error(`filter ${filter}`);
  const predictor = number(dict, "Predictor") ?? 1;
  const widthsMatch = /\/W\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(dict);
  if (!widthsMatch) throw new Error("no /W");
  const widths = widthsMatch.slice(1, 4).map(Number);
  const rowLength = widths[0]! + widths[1]! + widths[2]!;
  if (predictor >= 10) data = pngUnpredict(data, number(dict, "Columns") ?? rowLength);
  else if (predictor !== 1) throw new Error(`predictor ${predictor}`);
  const size = number(dict, "Size");
  if (size === undefined || rowLength === 0) throw new Error("no /Size");
  const index = /\/Index\s*\[([\d\s]*)\]/.exec(dict)?.[1]?.trim().split(/\s+/).map(Number) ?? [0, size];
  const entries = new Map<number, XrefEntry>();
  let offset = 0;
  const field = (width: number, fallback: number) => {
    if (width === 0) return fallback;
    let value = 0;
    for (let byte = 0; byte < width; byte++) value = value * 256 + data[offset++]!;
    return value;
  };
  for (let pair = 0; pair + 1 < index.length; pair += 2) {
    for (let number = index[pair]!; number < index[pair]! + index[pair + 1]!; number++) {
      if (offset + rowLength > data.length) throw new Error("stream data shorter than its /Index");
      const entry = { type: field(widths[0]!, 1), field2: field(widths[1]!, 0), field3: field(widths[2]!, 0) };
      if (!entries.has(number)) entries.set(number, entry);
    }
  }
  return { entries, trailer: dict, stream: true, widths };
}

/** findStartxref is the offset the last `startxref` in the file's final 1024 bytes names. */
function findStartxref(bytes: Uint8Array): number | undefined {
  const tail = latin1(bytes, Math.max(0, bytes.length - 1024), bytes.length);
  const at = tail.lastIndexOf("startxref");
  const match = at < 0 ? null : /^startxref\s+(\d+)/.exec(tail.slice(at));
  return match ? Number(match[1]) : undefined;
}

/** readSection reads the table or stream at an offset. */
function readSection(bytes: Uint8Array, at: number): Section {
  if (at < 0 || at >= bytes.length) throw new Error("offset outside the file");
  return bytes[at] === 0x78 ? readTable(bytes, at) : readStream(bytes, at);
}

/**
 * readXrefChain reads the chain from startxref through every /Prev and /XRefStm, as the standard
 * defines it and without any repair. Returns null when any part does not read (the file needs
 * repair; libpdf's recovery decides then).
 */
export function readXrefChain(bytes: Uint8Array): XrefChain | null {
  const startxref = findStartxref(bytes);
  if (startxref === undefined) return null;
  const chain: XrefChain = { startxref, newestIsStream: false, entries: new Map(), trailer: {}, widestField: 0, hybrid: false };
  const seen = new Set<number>();
  try {
    for (let at: number | undefined = startxref; at !== undefined; ) {
      if (seen.has(at)) return null; // a /Prev loop
      seen.add(at);
      const section = readSection(bytes, at);
      if (at === startxref) chain.newestIsStream = section.stream;
      chain.widestField = Math.max(chain.widestField, ...(section.widths ?? [0]));
      const xrefStm = section.stream ? undefined : number(section.trailer, "XRefStm");
      if (xrefStm !== undefined) {
        // A hybrid section: its stream lists what the table leaves out or marks free.
        chain.hybrid = true;
        const hidden = readStream(bytes, xrefStm);
        chain.widestField = Math.max(chain.widestField, ...(hidden.widths ?? [0]));
        for (const [number, entry] of hidden.entries) if ((section.entries.get(number)?.type ?? 0) === 0) section.entries.set(number, entry);
      }
      for (const [number, entry] of section.entries) if (!chain.entries.has(number)) chain.entries.set(number, entry);
      const values = trailerValues(section.trailer);
      chain.trailer = { ...values, ...chain.trailer };
      at = number(section.trailer, "Prev");
    }
  } catch {
    return null;
  }
  return chain.trailer.root ? chain : null;
}

/**
 * withReadableXref is a parse view of a file whose chain libpdf cannot read: the bytes followed
 * by one cross-reference stream with narrow fields (/W [1 4 4]) holding the whole merged chain
 * and the newest trailer's /Root, /Info and /ID. Only for parsing: the signer saves its update onto
 * the original bytes (libpdf-internals rebaseOnto), never onto the view.
 */
export function withReadableXref(bytes: Uint8Array, chain: XrefChain): Buffer {
  const size = Math.max(0, ...chain.entries.keys()) + 1;
  const rows = Buffer.alloc(size * 9);
  for (let number = 0; number < size; number++) {
    const entry = chain.entries.get(number) ?? { type: 0, field2: 0, field3: number === 0 ? 65535 : 0 };
    rows.writeUInt8(entry.type, number * 9);
    rows.writeUInt32BE(entry.field2, number * 9 + 1);
    rows.writeUInt32BE(entry.field3, number * 9 + 5);
  }
  const data = deflateSync(rows);
  const offset = bytes.length + 1;
  const { root, info, id } = chain.trailer;
  const dict = `<< /Type /XRef /Size ${size} /W [1 4 4] /Root ${root}${info ? ` /Info ${info}` : ""}${id ? ` /ID ${id}` : ""} /Filter /FlateDecode /Length ${data.length} >>`;
  return Buffer.concat([
    bytes,
    Buffer.from(`\n${size} 0 obj\n${dict}\nstream\n`, "latin1"),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${offset}\n%%EOF\n`, "latin1"),
  ]);
}
