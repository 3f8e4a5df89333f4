import { deflateSync } from "node:zlib";
import { PdfArray, type PdfDict, PdfRef, PdfString } from "@libpdf/core";
import { readXrefSections, type XrefEntry as SectionEntry } from "#domain/pdf/revisions.ts";
import { PdfLexer, PdfSyntaxError } from "#domain/pdf/syntax.ts";

/**
 * The signer's view of a PDF's cross-reference chain (ISO 32000-1 7.5.4, 7.5.8): classic tables,
 * cross-reference streams with any field widths up to 8 bytes, /XRefStm of hybrid files, /Prev,
 * read by the one cross-reference reader (pdf/revisions.ts readXrefSections). libpdf 0.4.2
 * refuses stream fields wider than 6 bytes (pyHanko writes /W [1 8 2]; the standard sets no
 * limit) and then rebuilds the file by brute force; openPdf uses this view for those files only.
 */

/** XrefEntry is one cross-reference entry: type 0 free, 1 at a byte offset, 2 inside an object stream. */
export interface XrefEntry {
  type: number;
  /** Type 1: the byte offset; type 2: the object stream's number. */
  field2: number;
  /** Type 1: the generation; type 2: the index inside the object stream. */
  field3: number;
}

/** TrailerValues are the trailer entries a rebuilt trailer needs. */
export interface TrailerValues {
  root?: PdfRef;
  info?: PdfRef;
  /** The two strings of /ID. */
  id?: [PdfString, PdfString];
  /** The trailer names an /Encrypt dictionary. */
  encrypted?: true;
}

/** XrefChain is the whole chain as read from startxref, newest section first. */
export interface XrefChain {
  /** The offset startxref names (the newest section). */
  startxref: number;
  /** The newest section is a cross-reference stream. */
  newestIsStream: boolean;
  /** Every object's entry, the newest section winning. */
  entries: Map<number, XrefEntry>;
  /** Trailer values, each from the newest trailer that has it. */
  trailer: TrailerValues;
  /** The largest field width of any cross-reference stream in the chain. */
  widestField: number;
  /** Some table names an /XRefStm (a hybrid-reference file). */
  hybrid: boolean;
}

/** trailerValues reads /Root, /Info, /ID and /Encrypt from a trailer (or cross-reference stream) dictionary. */
function trailerValues(trailer: PdfDict): TrailerValues {
  const root = trailer.get("Root");
  const info = trailer.get("Info");
  const id = trailer.get("ID");
  const ids = id instanceof PdfArray ? id.toArray() : [];
  return {
    ...(root instanceof PdfRef ? { root } : {}),
    ...(info instanceof PdfRef ? { info } : {}),
    ...(ids.length === 2 && ids.every((item) => item instanceof PdfString) ? { id: ids as [PdfString, PdfString] } : {}),
    ...(trailer.has("Encrypt") ? { encrypted: true as const } : {}),
  };
}

/** lastTrailerValues reads /Root, /Info, /ID and /Encrypt from the file's last `trailer` dictionary (empty when there is none or it does not parse). */
export function lastTrailerValues(bytes: Buffer): TrailerValues {
  const at = bytes.lastIndexOf("trailer", undefined, "latin1");
  const start = at < 0 ? -1 : bytes.indexOf("<<", at, "latin1");
  if (start < 0 || start > at + 64) return {};
  try {
    return trailerValues(new PdfLexer(bytes, start).dictionary());
  } catch (error) {
    if (error instanceof PdfSyntaxError) return {};
    throw error;
  }
}

/** numbered is an entry as the cross-reference stream of the view writes it. */
function numbered(entry: SectionEntry): XrefEntry {
  if (entry.type === "free") return { type: 0, field2: 0, field3: entry.generation };
  if (entry.type === "offset") return { type: 1, field2: entry.offset, field3: entry.generation };
  return { type: 2, field2: entry.stream, field3: entry.index };
}

/**
 * readXrefChain reads the chain from startxref through every /Prev and /XRefStm, as the standard
 * defines it and without any repair, under the verify limits. Returns null when any part does not
 * read (the file needs repair; libpdf's recovery decides then).
 */
export function readXrefChain(bytes: Uint8Array): XrefChain | null {
  let read: ReturnType<typeof readXrefSections>;
  try {
    read = readXrefSections(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  } catch {
    return null;
  }
  const { startxref, sections } = read;
  const chain: XrefChain = { startxref, newestIsStream: sections[0]!.stream, entries: new Map(), trailer: {}, widestField: 0, hybrid: false };
  for (const section of sections) {
    chain.widestField = Math.max(chain.widestField, section.widestField);
    chain.hybrid ||= section.hybrid;
    for (const [number, entry] of section.entries) if (!chain.entries.has(number)) chain.entries.set(number, numbered(entry));
    chain.trailer = { ...trailerValues(section.trailer), ...chain.trailer };
  }
  return chain.trailer.root ? chain : null;
}

/** refText and idText write a reference and an /ID array as PDF syntax. */
const refText = (ref: PdfRef) => `${ref.objectNumber} ${ref.generation} R`;
const idText = (id: [PdfString, PdfString]) => `[${id.map((part) => `<${Buffer.from(part.bytes).toString("hex")}>`).join(" ")}]`;

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
  const optional = `${info ? ` /Info ${refText(info)}` : ""}${id ? ` /ID ${idText(id)}` : ""}`;
  const dict = `<< /Type /XRef /Size ${size} /W [1 4 4] /Root ${root ? refText(root) : "null"}${optional} /Filter /FlateDecode /Length ${data.length} >>`;
  return Buffer.concat([
    bytes,
    Buffer.from(`\n${size} 0 obj\n${dict}\nstream\n`, "latin1"),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${offset}\n%%EOF\n`, "latin1"),
  ]);
}
