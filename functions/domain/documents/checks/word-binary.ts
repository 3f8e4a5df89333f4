import type { CompoundStream } from "#domain/shared/compound-file.ts";
import { docLinkField } from "#domain/documents/checks/rtf.ts";
import { TimeSlice } from "#domain/shared/time-slice.ts";

/**
 * What in a Word 97-2003 file makes a reader load something from outside it. A .doc cannot be
 * rewritten here, so any of these refuses the file:
 * - a linking field (INCLUDEPICTURE, INCLUDETEXT, LINK, DDE, ...), found by the field-type byte
 *   of its descriptor (what LibreOffice dispatches on, whatever the field's text says), and by its
 *   field-start character and name in the file and in every stream read whole (text may cross sectors);
 * - a floating or inline picture whose OfficeArt properties ([MS-ODRAW] OfficeArtFOPT) set
 *   msoblipflagLinkToFile on pibFlags (or on the picture fill of a shape or line): its pibName is
 *   a path or URL LibreOffice loads (LibreOffice itself writes such a .doc for a linked picture
 *   anchored to a paragraph, with no field);
 * - an inline picture's PICF ([MS-DOC]) in the Data stream whose mapping mode says the picture is
 *   a file named after the header (MM_SHAPEFILE 0x66, and 94 and 99, which LibreOffice writes and
 *   reads as a linked BMP/GIF or TIFF file).
 */

/** DocLink is what links a .doc to outside content: a short reason for the caller, and the kind for the error details. */
export interface DocLink {
  reason: string;
  issue: string;
}

const FOPT = 0xf00b;
const SECONDARY_FOPT = 0xf121;
const TERTIARY_FOPT = 0xf122;
// pibFlags, fillBlipFlags, lineFillBlipFlags: msoblipflagLinkToFile is bit 3.
const BLIP_FLAGS = new Map([
  [0x0106, "picture"],
  [0x0187, "picture fill"],
  [0x01c7, "line picture fill"],
]);
const LINK_TO_FILE = 0x08;
// PICF mapping modes for a picture kept in a file named after the header.
const LINKED_PICTURE_MODES = new Set([0x5e, 0x63, 0x66]);
const PICF_HEADER = 0x44;

/** linkedBlip finds an OfficeArt property table (FOPT) marking a picture as linked to a file; returns what kind of picture. */
function linkedBlip(stream: Buffer, at: number): string | undefined {
  const type = stream.readUInt16LE(at + 2);
  if (type !== FOPT && type !== SECONDARY_FOPT && type !== TERTIARY_FOPT) return undefined;
  const verInstance = stream.readUInt16LE(at);
  if ((verInstance & 0x0f) !== 3) return undefined;
  const count = verInstance >> 4;
  const length = stream.readUInt32LE(at + 4);
  if (count === 0 || length < count * 6 || at + 8 + length > stream.length) return undefined;
  for (let i = 0; i < count; i++) {
    const property = at + 8 + i * 6;
    const id = stream.readUInt16LE(property);
    const kind = BLIP_FLAGS.get(id & 0x3fff);
    if (kind && (id & 0x8000) === 0 && (stream.readUInt32LE(property + 2) & LINK_TO_FILE) !== 0) return kind;
  }
  return undefined;
}

/** linkedPicf finds a PICF header whose picture is a file named right after it (a non-empty name of printable characters). */
function linkedPicf(stream: Buffer, at: number): boolean {
  if (at + PICF_HEADER + 2 > stream.length || stream.readUInt16LE(at + 4) !== PICF_HEADER) return false;
  if (!LINKED_PICTURE_MODES.has(stream.readUInt16LE(at + 6))) return false;
  const size = stream.readUInt32LE(at);
  const nameLength = stream[at + PICF_HEADER]!;
  if (nameLength === 0 || size < PICF_HEADER + 1 + nameLength || at + PICF_HEADER + 1 + nameLength > stream.length) return false;
  const name = stream.subarray(at + PICF_HEADER + 1, at + PICF_HEADER + 1 + nameLength);
  return name.every((byte) => byte >= 0x20 && byte !== 0x7f);
}

// The field-type byte of a field's begin character ([MS-DOC] 2.9.90 Flt): the types that load
// content from outside the document. LibreOffice dispatches on this byte, not on the field's text.
const LINKING_FIELD_TYPES = new Map([
  [36, "INCLUDE"],
  [45, "DDE"],
  [46, "DDEAUTO"],
  [55, "IMPORT"],
  [56, "LINK"],
  [67, "INCLUDEPICTURE"],
  [68, "INCLUDETEXT"],
  [78, "DATABASE"],
  [82, "SUBSCRIBER"],
]);
// FibRgFcLcb97 pairs of the field tables: main text, headers, footnotes, comments, macros, endnotes, text boxes, header text boxes.
const FIELD_TABLES = [16, 17, 18, 19, 20, 48, 57, 59];
const FIELD_BEGIN = 0x13;

/**
 * linkingFieldType finds a field whose type byte (in the PLCFs of field descriptors the FIB points
 * at, in the table stream) is a linking type; returns its name, or undefined. Every WordDocument
 * stream is read with every table stream of the name its FIB gives (embedded documents have their
 * own, and names may repeat); a FIB or table that cannot be followed is left to the other checks.
 */
function linkingFieldType(streams: ReadonlyArray<{ name: string; bytes: Buffer }>): string | undefined {
  for (const { name, bytes: word } of streams) {
    if (name !== "WordDocument" || word.length < 160 || word.readUInt16LE(0) !== 0xa5ec) continue;
    const tableName = (word.readUInt16LE(0x0a) & 0x0200) !== 0 ? "1Table" : "0Table";
    for (const table of streams.filter((stream) => stream.name === tableName)) {
      const found = fieldTypesIn(word, table.bytes);
      if (found) return found;
    }
  }
  return undefined;
}

/** fieldTypesIn reads the field tables one FIB points at in one table stream; returns the first linking type. */
function fieldTypesIn(word: Buffer, table: Buffer): string | undefined {
  let at = 34 + word.readUInt16LE(32) * 2;
  if (at + 2 > word.length) return undefined;
  at += 2 + word.readUInt16LE(at) * 4;
  if (at + 2 > word.length) return undefined;
  const pairs = word.readUInt16LE(at);
  at += 2;
  for (const index of FIELD_TABLES) {
    if (index >= pairs || at + index * 8 + 8 > word.length) continue;
    const fc = word.readUInt32LE(at + index * 8);
    const lcb = word.readUInt32LE(at + index * 8 + 4);
    if (lcb < 4 + 6 || fc + lcb > table.length) continue;
    // A PLCF: n + 1 character positions, then n two-byte field descriptors (ch, flt).
    const count = Math.floor((lcb - 4) / 6);
    const descriptors = fc + (count + 1) * 4;
    for (let i = 0; i < count; i++) {
      const type = LINKING_FIELD_TYPES.get(table[descriptors + i * 2 + 1]!);
      if ((table[descriptors + i * 2]! & 0x1f) === FIELD_BEGIN && type) return type;
    }
  }
  return undefined;
}

/** scanStream looks at every offset of one stream for a linked picture record. */
async function scanStream(name: string, stream: Buffer, slice: TimeSlice): Promise<DocLink | undefined> {
  for (let at = 0; at + 8 <= stream.length; at++) {
    if ((at & 0xffff) === 0 && slice.due()) await slice.pause();
    if (stream[at + 3] === 0xf0) {
      const kind = linkedBlip(stream, at);
      if (kind) return { reason: `a ${kind} linked to a file or URL`, issue: `linked ${kind} (OfficeArt, ${name} stream)` };
    }
    if (name === "Data" && stream[at + 4] === PICF_HEADER && linkedPicf(stream, at)) {
      return { reason: "a picture linked to a file or URL", issue: "linked picture (PICF, Data stream)" };
    }
  }
  return undefined;
}

/**
 * docLink finds what in a Word 97-2003 file loads content from outside it (see above); undefined
 * when nothing does. `streams` are the file's streams as readCompoundStreams read them (none for a
 * file that is not a compound file, such as an HTML file named .doc, which LibreOffice also opens:
 * it is only searched for fields), so the caller reads them once for every check.
 */
export async function docLink(bytes: Uint8Array, streams: readonly CompoundStream[]): Promise<DocLink | undefined> {
  const field = docLinkField(bytes);
  if (field) return { reason: `a ${field} field`, issue: `${field} field` };
  const slice = new TimeSlice();
  // Embedded objects' streams too: an embedded document can hold links of its own.
  for (const { name, bytes: stream } of streams) {
    const inStream = docLinkField(stream);
    if (inStream) return { reason: `a ${inStream} field`, issue: `${inStream} field` };
    const found = await scanStream(name, stream, slice);
    if (found) return found;
  }
  const typed = linkingFieldType(streams);
  return typed ? { reason: `a ${typed} field`, issue: `${typed} field (field type)` } : undefined;
}
