import { deflateSync } from "node:zlib";
import { PdfArray, type PdfDict, PdfRef, PdfString } from "@libpdf/core";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
import { PdfLexer, PdfSyntaxError } from "#domain/pdf/syntax.ts";

/**
 * What @libpdf/core (the writer) needs to load files its own parser reads badly. libpdf 0.4.2
 * refuses cross-reference stream fields wider than 6 bytes (pyHanko writes /W [1 8 2]; the
 * standard sets no limit) and then rebuilds the file by brute force: for those files the writer
 * parses a view whose cross-reference section is rebuilt from the PdfFile's latest revision.
 */

/** TrailerValues are the trailer entries a rebuilt trailer needs. */
interface TrailerValues {
  root?: PdfRef;
  info?: PdfRef;
  /** The two strings of /ID. */
  id?: [PdfString, PdfString];
}

/** trailerValues reads /Root, /Info and /ID from a trailer (or cross-reference stream) dictionary. */
function trailerValues(trailer: PdfDict): TrailerValues {
  const root = trailer.get("Root");
  const info = trailer.get("Info");
  const id = trailer.get("ID");
  const ids = id instanceof PdfArray ? id.toArray() : [];
  return {
    ...(root instanceof PdfRef ? { root } : {}),
    ...(info instanceof PdfRef ? { info } : {}),
    ...(ids.length === 2 && ids.every((item) => item instanceof PdfString) ? { id: ids as [PdfString, PdfString] } : {}),
  };
}

/** fileTrailerValues are the trailer values of a file, each from the newest revision whose trailer has it. */
export function fileTrailerValues(file: PdfFile): TrailerValues {
  let values: TrailerValues = {};
  for (const revision of file.revisions) values = { ...values, ...trailerValues(revision.trailer) };
  return values;
}

/**
 * lastTrailerValues reads /Root, /Info and /ID from the last `trailer` dictionary of a file whose
 * cross-reference chain does not read (no PdfFile): what a repairing writer keeps (empty when
 * there is none or it does not parse).
 */
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

/** refText and idText write a reference and an /ID array as PDF syntax. */
const refText = (ref: PdfRef) => `${ref.objectNumber} ${ref.generation} R`;
const idText = (id: [PdfString, PdfString]) => `[${id.map((part) => `<${Buffer.from(part.bytes).toString("hex")}>`).join(" ")}]`;

/**
 * withReadableXref is a parse view of a file whose chain libpdf cannot read: the bytes followed
 * by one cross-reference stream with narrow fields (/W [1 4 4]) holding every entry of the file's
 * latest revision and its trailer's /Root, /Info and /ID. Only for parsing: the signer saves its
 * update onto the original bytes (libpdf-internals rebaseOnto), never onto the view.
 */
export function withReadableXref(file: PdfFile): Buffer {
  const entries = file.latestEntries();
  const size = Math.max(0, ...entries.keys()) + 1;
  const rows = Buffer.alloc(size * 9);
  for (let number = 0; number < size; number++) {
    const entry = entries.get(number) ?? { type: "free", generation: number === 0 ? 65535 : 0 };
    const [type, second, third] =
      entry.type === "free" ? [0, 0, entry.generation] : entry.type === "offset" ? [1, entry.offset, entry.generation] : [2, entry.stream, entry.index];
    rows.writeUInt8(type, number * 9);
    rows.writeUInt32BE(second, number * 9 + 1);
    rows.writeUInt32BE(third, number * 9 + 5);
  }
  const data = deflateSync(rows);
  const offset = file.bytes.length + 1;
  const { root, info, id } = fileTrailerValues(file);
  const optional = `${info ? ` /Info ${refText(info)}` : ""}${id ? ` /ID ${idText(id)}` : ""}`;
  const dict = `<< /Type /XRef /Size ${size} /W [1 4 4] /Root ${root ? refText(root) : "null"}${optional} /Filter /FlateDecode /Length ${data.length} >>`;
  return Buffer.concat([
    file.bytes,
    Buffer.from(`\n${size} 0 obj\n${dict}\nstream\n`, "latin1"),
    data,
    Buffer.from(`\nendstream\nendobj\nstartxref\n${offset}\n%%EOF\n`, "latin1"),
  ]);
}
