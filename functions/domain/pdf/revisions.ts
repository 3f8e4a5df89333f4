import { inflateSync, constants as zlibConstants } from "node:zlib";
import { PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream, type PdfObject } from "@libpdf/core";
import { endstreamFollows, PdfLexer, PdfSyntaxError, readObjectHeader, streamDataStart } from "#domain/pdf/syntax.ts";
import { formatBytes } from "#domain/shared/sizes.ts";
import { DEFAULT_VERIFY_LIMITS, VerifyBudget, verifyLimitError, type VerifyLimits } from "#domain/pdf/verify-limits.ts";

/** XrefEntry is what one cross-reference section says about one object number. */
export type XrefEntry =
  | { type: "free"; generation: number }
  | { type: "offset"; offset: number; generation: number }
  | { type: "compressed"; stream: number; index: number; generation: 0 };

/**
 * Revision is one incremental update of a PDF (revision 0 is the original file): where its bytes
 * end, its trailer, the entries its own cross-reference section(s) define, and why readers could
 * disagree about it (pyHanko's strict mode refuses such files).
 */
export interface Revision {
  index: number;
  /** Offset just after this revision's %%EOF line: the file as it was after this update. */
  end: number;
  /** The offset its startxref names: where a reader of the file as it was then starts. */
  startxref: number;
  trailer: PdfDict;
  /** Entries this revision's section(s) define, by object number. */
  entries: Map<number, XrefEntry>;
  /** Why readers could disagree about what this update defines (duplicates, generation changes, a /Prev that skips, ...). */
  problems: string[];
}

/** RevisionError says the cross-reference chain could not be read (the analysis then reports "other"). */
class RevisionError extends Error {}

/** XrefSection is one cross-reference section as written: a table (with the stream a hybrid file's /XRefStm adds) or a stream. */
export interface XrefSection {
  offset: number;
  /** Where the section's trailer or stream object ends (its %%EOF follows). */
  endAt: number;
  trailer: PdfDict;
  entries: Map<number, XrefEntry>;
  problems: string[];
  /** The section is a cross-reference stream. */
  stream: boolean;
  /** The widest field (/W) of the section's cross-reference stream(s), 0 for a table alone. */
  widestField: number;
  /** A table whose trailer names an /XRefStm (a hybrid-reference file). */
  hybrid: boolean;
}

const EOF_MARK = Buffer.from("%%EOF", "latin1");
const STARTXREF = Buffer.from("startxref", "latin1");

function intOf(dict: PdfDict, key: string): number | undefined {
  const value = dict.get(key);
  return value instanceof PdfNumber && Number.isSafeInteger(value.value) && value.value >= 0 ? value.value : undefined;
}

/** unpredict undoes the PNG predictors (10-15) a stream's /DecodeParms may name; bounded by the data. */
function unpredict(data: Buffer, columns: number): Buffer {
  if (!Number.isSafeInteger(columns) || columns < 1 || columns > 1 << 20) throw new RevisionError("a stream with a malformed /Columns");
  const rowLength = columns + 1;
  const rows = Math.floor(data.length / rowLength);
  const out = Buffer.alloc(rows * columns);
  for (let row = 0; row < rows; row++) {
    const filter = data[row * rowLength]!;
    for (let column = 0; column < columns; column++) {
      const raw = data[row * rowLength + 1 + column]!;
      const left = column > 0 ? out[row * columns + column - 1]! : 0;
      const up = row > 0 ? out[(row - 1) * columns + column]! : 0;
      const upLeft = row > 0 && column > 0 ? out[(row - 1) * columns + column - 1]! : 0;
      let value = raw;
      if (filter === 1) value = raw + left;
      else if (filter === 2) value = raw + up;
      else if (filter === 3) value = raw + Math.floor((left + up) / 2);
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        value = raw + (pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft);
      }
      out[row * columns + column] = value & 0xff;
    }
  }
  return out;
}

/**
 * decodeStream returns a stream's decoded data for the two kinds verification reads itself
 * (cross-reference and object streams): FlateDecode (with PNG predictors) or no filter, inflated
 * with an output cap so a small stream cannot become hundreds of MB.
 */
function decodeStream(dict: PdfDict, raw: Buffer, limits: VerifyLimits, budget: VerifyBudget): Buffer {
  let filter = dict.get("Filter");
  let params = dict.get("DecodeParms");
  if (filter instanceof PdfArray) {
    if (filter.length > 1) throw new RevisionError("a cross-reference or object stream with more than one filter");
    filter = filter.at(0);
    params = params instanceof PdfArray ? params.at(0) : params;
  }
  if (filter === undefined) return raw;
  if (!(filter instanceof PdfName) || filter.value !== "FlateDecode") throw new RevisionError("a cross-reference or object stream with an unsupported filter");
  let data: Buffer;
  try {
    const remaining = limits.maxInflatedBytes - budget.inflatedBytes;
    if (remaining <= 0) throw new RangeError("inflated bytes spent");
    data = inflateSync(raw, { maxOutputLength: remaining, finishFlush: zlibConstants.Z_SYNC_FLUSH });
    budget.inflatedBytes += data.length;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError) {
      const cap = formatBytes(limits.maxInflatedBytes);
      throw verifyLimitError(
        `holds cross-reference or object streams that inflate to more than ${cap}`,
        `cross-reference and object streams of at most ${cap} inflated`,
      );
    }
    throw new RevisionError("a compressed stream that does not inflate");
  }
  if (params instanceof PdfDict && (intOf(params, "Predictor") ?? 1) >= 10) data = unpredict(data, intOf(params, "Columns") ?? 1);
  return data;
}

/** readStreamBody returns a stream's raw data: exactly /Length bytes, followed by endstream (else readers disagree). */
function readStreamBody(bytes: Buffer, dictEnd: number, length: number | undefined): { data: Buffer; endAt: number } | undefined {
  const start = streamDataStart(bytes, dictEnd);
  if (start === undefined) return undefined;
  if (length === undefined) throw new RevisionError("a stream without a readable /Length");
  if (start + length > bytes.length || !endstreamFollows(bytes, start + length))
    throw new RevisionError(`a stream whose /Length does not end at endstream (byte ${start})`);
  return { data: bytes.subarray(start, start + length), endAt: start + length };
}

function addEntry(section: XrefSection, number: number, entry: XrefEntry, what: string): void {
  if (section.entries.has(number)) section.problems.push(`the ${what} at byte ${section.offset} defines object ${number} twice`);
  else section.entries.set(number, entry);
}

function readTable(bytes: Buffer, offset: number, limits: VerifyLimits, budget: VerifyBudget): XrefSection {
  const lexer = new PdfLexer(bytes, offset);
  if (lexer.keyword("xref") === undefined) throw new RevisionError(`no cross-reference section at byte ${offset}`);
  const section: XrefSection = {
    offset,
    endAt: offset,
    trailer: new PdfDict(),
    entries: new Map(),
    problems: [],
    stream: false,
    widestField: 0,
    hybrid: false,
  };
  let count = 0;
  for (;;) {
    const start = lexer.integer();
    if (start === undefined) break;
    const length = lexer.integer();
    if (length === undefined) throw new RevisionError(`a malformed cross-reference subsection header at byte ${lexer.at}`);
    for (let item = 0; item < length; item++) {
      budget.check();
      if (++count > limits.maxObjectsPerRevision) {
        throw verifyLimitError(
          `has a cross-reference section with more than ${limits.maxObjectsPerRevision} objects`,
          `at most ${limits.maxObjectsPerRevision} objects per revision`,
        );
      }
      const at = lexer.integer();
      const generation = lexer.integer();
      const kind = lexer.keyword();
      if (at === undefined || generation === undefined || (kind !== "n" && kind !== "f"))
        throw new RevisionError(`a malformed cross-reference table entry at byte ${lexer.at}`);
      const number = start + item;
      addEntry(section, number, kind === "n" ? { type: "offset", offset: at, generation } : { type: "free", generation }, "cross-reference table");
    }
  }
  if (lexer.keyword("trailer") === undefined) throw new RevisionError(`a cross-reference table without a trailer (byte ${lexer.at})`);
  try {
    section.trailer = lexer.dictionary();
  } catch (error) {
    throw new RevisionError(`an unreadable trailer (${(error as Error).message})`);
  }
  section.endAt = lexer.at;
  return section;
}

/** readStreamDictionary reads the "n g obj << ... >>" at an offset: the dictionary and where it ends. */
function readStreamDictionary(bytes: Buffer, offset: number): { dict: PdfDict; dictEnd: number } {
  try {
    const header = readObjectHeader(bytes, offset);
    const lexer = new PdfLexer(bytes, header.valueAt);
    const dict = lexer.dictionary();
    return { dict, dictEnd: lexer.at };
  } catch (error) {
    throw new RevisionError(`no cross-reference section at byte ${offset} (${(error as Error).message})`);
  }
}

/** readWidths reads a cross-reference stream's /W: three widths of 0 to 8 bytes, the second not 0. */
function readWidths(dict: PdfDict): [number, number, number] {
  const widthsValue = dict.get("W");
  const widths = widthsValue instanceof PdfArray ? widthsValue.toArray().map((item) => (item instanceof PdfNumber ? item.value : Number.NaN)) : [];
  if (widths.length !== 3 || widths.some((width) => !Number.isInteger(width) || width < 0 || width > 8)) {
    throw new RevisionError("a cross-reference stream with a malformed /W");
  }
  // Refused before any reader loops over entries that no bytes back (422, not "unreadable").
  if (widths[1] === 0)
    throw verifyLimitError(
      "has a cross-reference stream whose entries have no offset field (/W with a zero second width)",
      "cross-reference streams whose entries are backed by their data",
    );
  return widths as [number, number, number];
}

/** readIndex reads a cross-reference stream's /Index (default [0 /Size]), refusing more entries than its data holds or the limits allow. */
function readIndex(dict: PdfDict, rowWidth: number, dataLength: number, limits: VerifyLimits): number[] {
  const size = intOf(dict, "Size");
  const indexValue = dict.get("Index");
  const index =
    indexValue === undefined
      ? [0, size ?? 0]
      : indexValue instanceof PdfArray
        ? indexValue.toArray().map((item) => (item instanceof PdfNumber ? item.value : Number.NaN))
        : [];
  if (index.length % 2 !== 0 || index.some((value) => !Number.isSafeInteger(value) || value < 0))
    throw new RevisionError("a cross-reference stream with a malformed /Index");
  // The entries are bounded by the bytes present: a huge /Index over little data is refused before any loop.
  let total = 0;
  for (let pair = 1; pair < index.length; pair += 2) total += index[pair]!;
  if (total * rowWidth > dataLength)
    // Refused before any reader loops over entries that no bytes back (422, not "unreadable").
    throw verifyLimitError(
      `has a cross-reference stream whose /Index lists ${total} entries but whose data holds ${Math.floor(dataLength / rowWidth)}`,
      "cross-reference streams whose entries are backed by their data",
    );
  if (total > limits.maxObjectsPerRevision) {
    throw verifyLimitError(
      `has a cross-reference stream with more than ${limits.maxObjectsPerRevision} objects`,
      `at most ${limits.maxObjectsPerRevision} objects per revision`,
    );
  }
  return index;
}

/** addStreamEntries adds the rows of a cross-reference stream's data to its section. */
function addStreamEntries(section: XrefSection, data: Buffer, widths: [number, number, number], index: number[], budget: VerifyBudget): void {
  const [w1, w2, w3] = widths;
  const rowWidth = w1 + w2 + w3;
  const field = (at: number, width: number, fallback: number) => {
    if (width === 0) return fallback;
    let value = 0;
    for (let byte = 0; byte < width; byte++) value = value * 256 + data[at + byte]!;
    return value;
  };
  let at = 0;
  for (let pair = 0; pair + 1 < index.length; pair += 2) {
    for (let item = 0; item < index[pair + 1]!; item++, at += rowWidth) {
      budget.check();
      const number = index[pair]! + item;
      const type = field(at, w1, 1);
      const second = field(at + w1, w2, 0);
      const third = field(at + w1 + w2, w3, 0);
      if (type === 0) addEntry(section, number, { type: "free", generation: third }, "cross-reference stream");
      else if (type === 1) addEntry(section, number, { type: "offset", offset: second, generation: third }, "cross-reference stream");
      else if (type === 2) addEntry(section, number, { type: "compressed", stream: second, index: third, generation: 0 }, "cross-reference stream");
      // Other types are to be ignored as references to the null object (ISO 32000-1, 7.5.8.3).
    }
  }
}

function readXrefStream(bytes: Buffer, offset: number, limits: VerifyLimits, budget: VerifyBudget): XrefSection {
  const { dict, dictEnd } = readStreamDictionary(bytes, offset);
  if (dict.getName("Type")?.value !== "XRef") throw new RevisionError(`the object at byte ${offset} is not a cross-reference stream`);
  const body = readStreamBody(bytes, dictEnd, intOf(dict, "Length"));
  if (!body) throw new RevisionError("a cross-reference stream without data");
  const data = decodeStream(dict, body.data, limits, budget);
  const widths = readWidths(dict);
  const index = readIndex(dict, widths[0] + widths[1] + widths[2], data.length, limits);
  const section: XrefSection = {
    offset,
    endAt: body.endAt,
    trailer: dict,
    entries: new Map(),
    problems: [],
    stream: true,
    widestField: Math.max(...widths),
    hybrid: false,
  };
  addStreamEntries(section, data, widths, index, budget);
  const endobj = new PdfLexer(bytes, body.endAt);
  endobj.keyword("endstream");
  endobj.keyword("endobj");
  section.endAt = endobj.at;
  return section;
}

const sameEntry = (a: XrefEntry, b: XrefEntry) =>
  a.type === b.type &&
  a.generation === b.generation &&
  (a.type !== "offset" || a.offset === (b as typeof a).offset) &&
  (a.type !== "compressed" || (a.stream === (b as typeof a).stream && a.index === (b as typeof a).index));

function readSection(bytes: Buffer, offset: number, limits: VerifyLimits, budget: VerifyBudget): XrefSection {
  if (!Number.isSafeInteger(offset) || offset < 0 || offset >= bytes.length) throw new RevisionError("a cross-reference offset outside the file");
  const lexer = new PdfLexer(bytes, offset);
  lexer.skipSpace();
  if (lexer.at !== offset && bytes.toString("latin1", lexer.at, lexer.at + 4) === "xref") offset = lexer.at;
  if (bytes.toString("latin1", offset, offset + 4) !== "xref") return readXrefStream(bytes, offset, limits, budget);
  const section = readTable(bytes, offset, limits, budget);
  const hybrid = intOf(section.trailer, "XRefStm");
  if (hybrid !== undefined) {
    // A hybrid file: the table is read first; the stream adds what the table does not define in use.
    if (hybrid >= bytes.length) throw new RevisionError("an /XRefStm offset outside the file");
    const stream = readXrefStream(bytes, hybrid, limits, budget);
    section.hybrid = true;
    section.widestField = stream.widestField;
    for (const [number, entry] of stream.entries) {
      const fromTable = section.entries.get(number);
      if (!fromTable || fromTable.type === "free") {
        if (fromTable && entry.type === "free") continue;
        section.entries.set(number, entry);
      } else if (entry.type !== "free" && !sameEntry(fromTable, entry)) {
        section.problems.push(`the hybrid file's table and cross-reference stream disagree about object ${number}`);
      }
    }
    section.problems.push(...stream.problems);
  }
  return section;
}

/** revisionEnd is the offset after the first %%EOF line following `from`. */
function revisionEnd(bytes: Buffer, from: number): number {
  const at = bytes.indexOf(EOF_MARK, from);
  if (at < 0) throw new RevisionError("a cross-reference section without %%EOF after it");
  let end = at + EOF_MARK.length;
  if (bytes[end] === 0x0d) end++;
  if (bytes[end] === 0x0a) end++;
  return end;
}

/** declaredStartxref is the number after the last `startxref` before a revision's %%EOF. */
function declaredStartxref(bytes: Buffer, before: number, notBefore: number): number | undefined {
  const at = bytes.lastIndexOf(STARTXREF, before);
  if (at < notBefore) return undefined;
  return new PdfLexer(bytes, at + STARTXREF.length).integer();
}

const OBJ_AFTER_EOF = /\d+\s+\d+\s+obj\b/;

/**
 * readXrefSections reads a PDF's cross-reference chain (tables, streams and hybrid files) from the
 * last startxref back through /Prev, each section once and without repair, under the verify
 * limits: the one cross-reference reader, for verification (readRevisions) and for the signer's
 * view of files libpdf cannot read (xref-chain.ts). Sections come newest first.
 */
export function readXrefSections(
  bytes: Buffer,
  limits: VerifyLimits = DEFAULT_VERIFY_LIMITS,
  budget = new VerifyBudget(limits.timeBudgetMs),
): { startxref: number; sections: XrefSection[] } {
  const last = bytes.lastIndexOf(STARTXREF);
  const first = last < 0 ? undefined : new PdfLexer(bytes, last + STARTXREF.length).integer();
  if (first === undefined) throw new RevisionError("no startxref");
  const sections: XrefSection[] = [];
  const seen = new Set<number>();
  for (let offset: number | undefined = first; offset !== undefined; ) {
    budget.checkNow();
    if (seen.has(offset)) throw new RevisionError("a cross-reference chain that loops (/Prev)");
    // The original may have two sections (linearized); every update adds one.
    if (sections.length > limits.maxRevisions + 2) {
      throw verifyLimitError(`has more than ${limits.maxRevisions} incremental updates`, `at most ${limits.maxRevisions} incremental updates (revisions)`);
    }
    seen.add(offset);
    let section: XrefSection;
    try {
      section = readSection(bytes, offset, limits, budget);
    } catch (error) {
      if (error instanceof PdfSyntaxError) throw new RevisionError(error.message);
      throw error;
    }
    sections.push(section);
    offset = intOf(section.trailer, "Prev");
    if (section.trailer.has("Prev") && offset === undefined) throw new RevisionError("a malformed /Prev");
  }
  return { startxref: first, sections };
}

/**
 * readRevisions reads a PDF's cross-reference chain (tables, streams and hybrid files) from the
 * last startxref back through /Prev, each section once, and returns the revisions oldest first,
 * with the trailing bytes' problem (objects after the last %%EOF that a repairing reader uses).
 */
export function readRevisions(
  bytes: Buffer,
  limits: VerifyLimits = DEFAULT_VERIFY_LIMITS,
  budget = new VerifyBudget(limits.timeBudgetMs),
): { revisions: Revision[]; trailingProblem?: string } {
  const { sections } = readXrefSections(bytes, limits, budget);
  sections.reverse();
  const revisions: Revision[] = [];
  for (const section of sections) {
    const end = revisionEnd(bytes, section.endAt);
    const previous = revisions.at(-1);
    if (previous && previous.end >= end) {
      if (previous.index === 0) {
        // A linearized file's first-page section and its main section form the original revision;
        // the first update's /Prev must still name the startxref the original declares (below).
        for (const [number, entry] of section.entries) previous.entries.set(number, entry);
        if (section.trailer.has("Root")) previous.trailer = section.trailer;
        previous.problems.push(...section.problems);
        continue;
      }
      previous.problems.push(`a second cross-reference section (byte ${section.offset}) inside update ${previous.index}`);
      for (const [number, entry] of section.entries) previous.entries.set(number, entry);
      continue;
    }
    const startxref = declaredStartxref(bytes, end, previous?.end ?? 0);
    const revision: Revision = {
      index: revisions.length,
      end,
      startxref: startxref ?? section.offset,
      trailer: section.trailer,
      entries: new Map(section.entries),
      problems: [...section.problems],
    };
    if (previous) {
      const prev = intOf(section.trailer, "Prev");
      if (prev !== previous.startxref) {
        revision.problems.push(
          `update ${revision.index}'s /Prev (${prev}) is not where revision ${previous.index}'s startxref (${previous.startxref}) points: it reads objects that revision's readers never saw`,
        );
      }
      if (startxref !== section.offset)
        revision.problems.push(`update ${revision.index}'s startxref (${startxref}) is not its cross-reference section (${section.offset})`);
    }
    revisions.push(revision);
  }
  if (revisions.length - 1 > limits.maxRevisions) {
    throw verifyLimitError(`has more than ${limits.maxRevisions} incremental updates`, `at most ${limits.maxRevisions} incremental updates (revisions)`);
  }
  checkRedefinitions(revisions);
  const tail = bytes.subarray(revisions.at(-1)!.end);
  const trailingProblem = OBJ_AFTER_EOF.test(tail.toString("latin1"))
    ? "objects follow the last %%EOF outside any cross-reference section (a repairing reader would use them)"
    : undefined;
  return { revisions, ...(trailingProblem ? { trailingProblem } : {}) };
}

/**
 * checkRedefinitions flags, in each update, objects defined again with another generation than
 * the one in use (readers disagree: some follow the generation, some only the number) and objects
 * an update brings back with a stale generation after a free entry.
 */
function checkRedefinitions(revisions: Revision[]): void {
  const current = new Map<number, XrefEntry>();
  for (const revision of revisions) {
    for (const [number, entry] of revision.entries) {
      const before = current.get(number);
      if (revision.index > 0 && before && entry.type !== "free" && before.type !== "free" && before.generation !== entry.generation) {
        revision.problems.push(`update ${revision.index} redefines object ${number} with generation ${entry.generation} (it was ${before.generation})`);
      }
      if (revision.index > 0 && before?.type === "free" && entry.type !== "free" && entry.generation < before.generation && number !== 0) {
        revision.problems.push(`update ${revision.index} revives freed object ${number} with a stale generation ${entry.generation}`);
      }
      current.set(number, entry);
    }
  }
}

/** ObjStmContents is one parsed object stream: the data and where each of its objects starts. */
interface ObjStmContents {
  data: Buffer;
  numbers: number[];
  offsets: number[];
}

/**
 * PdfRevisions is a file's revisions and the objects each one resolves to, read with Signet's own
 * parser: each section once, each object once per location (cached), under the verify limits.
 */
export class PdfRevisions {
  readonly revisions: Revision[];
  readonly trailingProblem: string | undefined;
  private readonly history = new Map<number, Array<{ revision: number; entry: XrefEntry }>>();
  private readonly parsed = new Map<number, { number: number; generation: number; value: PdfObject; dictEnd: number }>();
  private readonly objectStreams = new Map<number, ObjStmContents>();
  private readonly resolved = new Map<string, PdfObject>();

  constructor(
    readonly bytes: Buffer,
    readonly limits: VerifyLimits = DEFAULT_VERIFY_LIMITS,
    readonly budget = new VerifyBudget(limits.timeBudgetMs),
  ) {
    const read = readRevisions(bytes, limits, budget);
    this.revisions = read.revisions;
    this.trailingProblem = read.trailingProblem;
    for (const revision of this.revisions) {
      for (const [number, entry] of revision.entries) {
        let list = this.history.get(number);
        if (!list) this.history.set(number, (list = []));
        list.push({ revision: revision.index, entry });
      }
    }
  }

  /** entryAt is the entry an object number has in revision `index` (its latest definition up to then). */
  entryAt(number: number, index: number): XrefEntry | undefined {
    const list = this.history.get(number);
    if (!list) return undefined;
    for (let at = list.length - 1; at >= 0; at--) if (list[at]!.revision <= index) return list[at]!.entry;
    return undefined;
  }

  /**
   * checkObjectStreams decodes every object stream the latest revision uses, once, under the
   * inflate cap: a bomb in one is refused (422) before another parser inflates it without bound.
   */
  checkObjectStreams(): void {
    const latest = this.revisions.at(-1)!.index;
    const streams = new Set<number>();
    for (const [number, list] of this.history) {
      const entry = this.entryAt(number, latest);
      if (entry?.type === "compressed" && list.length > 0) streams.add(entry.stream);
    }
    for (const stream of streams) {
      this.budget.check();
      try {
        this.objectStream(stream, latest);
      } catch (error) {
        if (error instanceof RevisionError) continue;
        throw error;
      }
    }
  }

  /** definedAfter lists the object numbers the revisions after `index` define or free. */
  definedAfter(index: number): Set<number> {
    const numbers = new Set<number>();
    for (const revision of this.revisions.slice(index + 1)) for (const number of revision.entries.keys()) numbers.add(number);
    return numbers;
  }

  /** objectAt resolves a reference as a reader of revision `index` does: undefined when free, undefined or of another generation. */
  objectAt(ref: PdfRef, index: number): PdfObject | undefined {
    this.budget.check();
    const entry = this.entryAt(ref.objectNumber, index);
    if (!entry || entry.type === "free" || entry.generation !== ref.generation) return undefined;
    if (entry.type === "compressed") {
      const streamEntry = this.entryAt(entry.stream, index);
      const key = `c${streamEntry?.type === "offset" ? streamEntry.offset : -1}:${entry.index}`;
      let object = this.resolved.get(key);
      if (!object) {
        object = this.compressedObject(ref.objectNumber, entry, index);
        this.resolved.set(key, object);
      }
      return object;
    }
    return this.objectAtOffset(ref, entry.offset, index);
  }

  private parseAt(offset: number): { number: number; generation: number; value: PdfObject; dictEnd: number } {
    let parsed = this.parsed.get(offset);
    if (!parsed) {
      if (offset >= this.bytes.length) throw new RevisionError(`an object offset outside the file (${offset})`);
      try {
        const header = readObjectHeader(this.bytes, offset);
        const lexer = new PdfLexer(this.bytes, header.valueAt);
        const value = lexer.value();
        parsed = { number: header.number, generation: header.generation, value, dictEnd: lexer.at };
      } catch (error) {
        if (error instanceof PdfSyntaxError) throw new RevisionError(`an unreadable object at byte ${offset} (${error.message})`);
        throw error;
      }
      this.parsed.set(offset, parsed);
    }
    return parsed;
  }

  private objectAtOffset(ref: PdfRef, offset: number, index: number): PdfObject {
    const parsed = this.parseAt(offset);
    if (parsed.number !== ref.objectNumber || parsed.generation !== ref.generation) {
      throw new RevisionError(
        `the cross-reference entry of object ${ref.objectNumber} points to object ${parsed.number} ${parsed.generation} (byte ${offset})`,
      );
    }
    if (!(parsed.value instanceof PdfDict)) return parsed.value;
    const lengthValue = parsed.value.get("Length");
    const length = lengthValue instanceof PdfRef ? this.objectAt(lengthValue, index) : lengthValue;
    const key = `o${offset}:${length instanceof PdfNumber ? length.value : "?"}`;
    const cached = this.resolved.get(key);
    if (cached) return cached;
    let body: ReturnType<typeof readStreamBody>;
    try {
      body = readStreamBody(
        this.bytes,
        parsed.dictEnd,
        length instanceof PdfNumber && Number.isSafeInteger(length.value) && length.value >= 0 ? length.value : undefined,
      );
    } catch (error) {
      if (error instanceof PdfSyntaxError) throw new RevisionError(error.message);
      throw error;
    }
    const object = body ? new PdfStream(parsed.value, body.data) : parsed.value;
    this.resolved.set(key, object);
    return object;
  }

  private compressedObject(number: number, entry: Extract<XrefEntry, { type: "compressed" }>, index: number): PdfObject {
    const contents = this.objectStream(entry.stream, index);
    if (contents.numbers[entry.index] !== number) throw new RevisionError(`object ${number} is not at index ${entry.index} of object stream ${entry.stream}`);
    try {
      return new PdfLexer(contents.data, contents.offsets[entry.index]!).value();
    } catch (error) {
      if (error instanceof PdfSyntaxError) throw new RevisionError(`an unreadable object ${number} in object stream ${entry.stream} (${error.message})`);
      throw error;
    }
  }

  private objectStream(number: number, index: number): ObjStmContents {
    const entry = { stream: number };
    const streamEntry = this.entryAt(entry.stream, index);
    if (streamEntry?.type !== "offset" || streamEntry.generation !== 0) throw new RevisionError(`object stream ${entry.stream} is not defined`);
    let contents = this.objectStreams.get(streamEntry.offset);
    if (!contents) {
      const stream = this.objectAt(PdfRef.of(entry.stream, 0), index);
      if (!(stream instanceof PdfStream) || stream.getName("Type")?.value !== "ObjStm")
        throw new RevisionError(`object ${entry.stream} is not an object stream`);
      const count = intOf(stream, "N");
      const first = intOf(stream, "First");
      if (count === undefined || first === undefined) throw new RevisionError(`object stream ${entry.stream} without /N or /First`);
      const data = decodeStream(stream, Buffer.from(stream.data), this.limits, this.budget);
      if (count * 4 > data.length || first > data.length) throw new RevisionError(`object stream ${entry.stream} lists more objects than its data holds`);
      const lexer = new PdfLexer(data, 0, first);
      const numbers: number[] = [];
      const offsets: number[] = [];
      for (let item = 0; item < count; item++) {
        this.budget.check();
        const objectNumber = lexer.integer();
        const at = lexer.integer();
        if (objectNumber === undefined || at === undefined) throw new RevisionError(`object stream ${entry.stream} has a malformed header`);
        numbers.push(objectNumber);
        offsets.push(first + at);
      }
      if (new Set(numbers).size !== numbers.length) throw new RevisionError(`object stream ${entry.stream} defines an object twice`);
      contents = { data, numbers, offsets };
      this.objectStreams.set(streamEntry.offset, contents);
    }
    return contents;
  }
}
