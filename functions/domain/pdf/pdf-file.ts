import { PdfDict, PdfNumber, PdfRef, PdfStream, type PdfObject } from "@libpdf/core";
import {
  decodeStream,
  intOf,
  type ChainFacts,
  lastEofBefore,
  lastTableAfter,
  NoNewestSectionError,
  readRevisions,
  readStreamBody,
  type Revision,
  RevisionError,
  type XrefEntry,
} from "#domain/pdf/revisions.ts";
import { PdfLexer, PdfSyntaxError, readObjectHeader } from "#domain/pdf/syntax.ts";
import { DEFAULT_VERIFY_LIMITS, VerifyBudget, type VerifyLimits } from "#domain/pdf/verify-limits.ts";
import { type PageTreeShape, readPageTree } from "#domain/pdf/page-tree.ts";
import type { ObjectDecryptor } from "#domain/pdf/encryption.ts";
import { CipherError } from "#domain/pdf/standard-security.ts";

/**
 * The PDF model: one bounded parse of a file's bytes (pyHanko's PdfFileReader with its historical
 * resolver, pdf.js's XRef). The cross-reference chain is read once from the last startxref (tables,
 * streams, hybrid files; pdf/revisions.ts), each object is parsed once per location (cached), and
 * everything is bounded by the verify limits (revisions, objects per section, inflated bytes,
 * nesting, a time budget). A view is one revision as its readers resolve it; the structure readers
 * (page-tree.ts, acroform.ts, docmdp.ts, the DSS) take a view, never bytes. Writing stays with
 * @libpdf/core (incremental updates): see docs/ARCHITECTURE.md, "The PDF model".
 */

/** PdfView is one revision of a file as its readers resolve it: its trailer, its catalog, and a resolver. */
export interface PdfView {
  /** The revision's index (0 is the original file). */
  index: number;
  trailer: PdfDict;
  /** The document catalog the trailer's /Root names. */
  catalog: PdfDict;
  /** resolve follows a reference as a reader of this revision does: undefined when free, missing or of another generation. */
  resolve(ref: PdfRef): PdfObject | undefined;
}

/** deref follows a reference in a view (any other value is itself). */
export function deref(view: PdfView, value: PdfObject | undefined): PdfObject | undefined {
  return value instanceof PdfRef ? view.resolve(value) : value;
}

/** dictAt is a value (followed) when it is a dictionary. */
export function dictAt(view: PdfView, value: PdfObject | undefined): PdfDict | undefined {
  const object = deref(view, value);
  return object instanceof PdfDict ? object : undefined;
}

/** PdfFileOptions bound one parse: the verify limits, a budget shared with the caller's later work, and the page limit. */
export interface PdfFileOptions {
  limits?: VerifyLimits | undefined;
  budget?: VerifyBudget | undefined;
  /** Pages the page tree walk counts before it stops (pageCount is then maxPages + 1). */
  maxPages?: number | undefined;
}

/** DEFAULT_MAX_PDF_PAGES is the page limit when none is configured (SIGNET_MAX_PDF_PAGES). */
export const DEFAULT_MAX_PDF_PAGES = 10_000;

/** ObjStmContents is one parsed object stream: the data and where each of its objects starts. */
interface ObjStmContents {
  data: Buffer;
  numbers: number[];
  offsets: number[];
}

/**
 * readOnce reads the revisions. When the newest startxref names nothing that reads as a section,
 * it reads what a repairing reader finds: the last cross-reference table after the previous
 * %%EOF (its revision then carries the problem that its startxref is not its section), else the
 * file as it was before that startxref, the bytes after it being the trailing problem. Either way
 * the file is `recovered`: every signature reports "other" for what follows it, and the signer
 * does not trust the recovered view (it repairs with libpdf and looks again). Any other chain that
 * does not read is a RevisionError.
 */
function readOnce(bytes: Buffer, limits: VerifyLimits, budget: VerifyBudget): ReturnType<typeof readRevisions> & { recovered: boolean } {
  try {
    return { ...readRevisions(bytes, limits, budget), recovered: false };
  } catch (error) {
    const before = error instanceof NoNewestSectionError ? lastEofBefore(bytes) : undefined;
    if (before === undefined) throw error;
    const table = lastTableAfter(bytes, before);
    try {
      if (table !== undefined) return { ...readRevisions(bytes, limits, budget, table), recovered: true };
    } catch {
      // The table found does not read either: the file before the startxref, below.
    }
    let read: ReturnType<typeof readRevisions>;
    try {
      read = readRevisions(bytes.subarray(0, before), limits, budget);
    } catch {
      throw error;
    }
    const trailingProblem = `the update after byte ${before} does not read as a cross-reference section (${(error as Error).message}): a repairing reader would use its objects`;
    return { ...read, trailingProblem, recovered: true };
  }
}

/**
 * PdfFile is one file read once: its revisions (oldest first), what its cross-reference chain says
 * (startxref, hybrid, encrypted, ...), a view per revision, and the objects each one resolves to,
 * read with Signet's own parser. Constructing it reads the chain (a limit over is a 422
 * SignetError; a chain that does not read as written is a RevisionError); objects are read on demand.
 */
export class PdfFile {
  /** How many PdfFiles this process has constructed: a test counts the parses one request makes. */
  static parses = 0;
  readonly revisions: Revision[];
  readonly trailingProblem: string | undefined;
  /** The newest startxref named no section: the revisions are what a repairing reader finds (readOnce). */
  readonly recovered: boolean;
  readonly limits: VerifyLimits;
  /** What work on the file may still spend; a caller starting new work later (the signer verifying earlier signatures) gives it a fresh one. */
  budget: VerifyBudget;
  private readonly chain: ChainFacts;
  private readonly maxPages: number;
  private readonly history = new Map<number, Array<{ revision: number; entry: XrefEntry }>>();
  private readonly parsed = new Map<number, { number: number; generation: number; value: PdfObject; dictEnd: number }>();
  private readonly objectStreams = new Map<number, ObjStmContents>();
  private readonly resolved = new Map<string, PdfObject>();
  private readonly views = new Map<number, PdfView>();
  private tree?: PageTreeShape;
  private decrypt?: ObjectDecryptor;

  constructor(
    readonly bytes: Buffer,
    options: PdfFileOptions = {},
  ) {
    PdfFile.parses++;
    this.limits = options.limits ?? DEFAULT_VERIFY_LIMITS;
    this.budget = options.budget ?? new VerifyBudget(this.limits.timeBudgetMs);
    this.maxPages = options.maxPages ?? DEFAULT_MAX_PDF_PAGES;
    const read = readOnce(bytes, this.limits, this.budget);
    this.revisions = read.revisions;
    this.chain = read.chain;
    this.trailingProblem = read.trailingProblem;
    this.recovered = read.recovered;
    for (const revision of this.revisions) {
      for (const [number, entry] of revision.entries) {
        let list = this.history.get(number);
        if (!list) this.history.set(number, (list = []));
        list.push({ revision: revision.index, entry });
      }
    }
  }

  /**
   * decryptWith makes every object read from now on decrypted (encryption.ts unlockPdfFile, once the
   * password is known); what was resolved before (the /Encrypt dictionary) is forgotten.
   */
  decryptWith(decrypt: ObjectDecryptor): void {
    this.decrypt = decrypt;
    this.resolved.clear();
    this.objectStreams.clear();
    this.views.clear();
    delete this.tree;
  }

  /** startxref is the offset the last startxref names (where a reader of the file starts). */
  get startxref(): number {
    return this.chain.startxref;
  }

  /** encrypted tells whether a trailer of the chain names an /Encrypt dictionary. */
  get encrypted(): boolean {
    return this.chain.encrypted;
  }

  /** hybrid tells whether a table of the chain names an /XRefStm (a hybrid-reference file). */
  get hybrid(): boolean {
    return this.chain.hybrid;
  }

  /** newestIsStream tells whether the newest cross-reference section is a stream (an update appended to it should be one too). */
  get newestIsStream(): boolean {
    return this.chain.newestIsStream;
  }

  /** widestField is the widest field (/W) of any cross-reference stream in the chain. */
  get widestField(): number {
    return this.chain.widestField;
  }

  /** problems lists why readers could disagree about the file: each revision's problems, then the trailing bytes'. */
  get problems(): string[] {
    return [...this.revisions.flatMap((revision) => revision.problems), ...(this.trailingProblem ? [this.trailingProblem] : [])];
  }

  /** linearized tells whether the file's first object is a linearization parameter dictionary. */
  get linearized(): boolean {
    let first: { number: number; offset: number } | undefined;
    for (const [number, entry] of this.revisions[0]!.entries) {
      if (entry.type === "offset" && entry.offset > 0 && (!first || entry.offset < first.offset)) first = { number, offset: entry.offset };
    }
    if (!first) return false;
    try {
      const value = this.parseAt(first.offset).value;
      return value instanceof PdfDict && value.has("Linearized");
    } catch (error) {
      if (error instanceof RevisionError) return false;
      throw error;
    }
  }

  /** view is revision `index` as its readers resolve it (cached); a revision whose trailer names no catalog is a RevisionError. */
  view(index: number): PdfView {
    let view = this.views.get(index);
    if (!view) {
      const revision = this.revisions[index];
      if (!revision) throw new RevisionError(`no revision ${index}`);
      const trailer = revision.trailer;
      const resolve = (ref: PdfRef) => this.objectAt(ref, index);
      const rootRef = trailer.get("Root");
      const catalog = rootRef instanceof PdfRef ? resolve(rootRef) : rootRef;
      if (!(catalog instanceof PdfDict)) throw new RevisionError(`revision ${index} has no document catalog`);
      view = { index, trailer, catalog, resolve };
      this.views.set(index, view);
    }
    return view;
  }

  /** latest is the file as its readers now see it (the newest revision). */
  get latest(): PdfView {
    return this.view(this.revisions.length - 1);
  }

  /** pageTree is the latest revision's page tree as readers walk it (page-tree.ts), walked once, up to maxPages + 1 pages. */
  get pageTree(): PageTreeShape {
    this.tree ??= readPageTree(this.latest, this.maxPages);
    return this.tree;
  }

  /** pageCount is the pages readers count (at most maxPages + 1: the walk stops there). */
  get pageCount(): number {
    return this.pageTree.pages.length;
  }

  /** declaredPageCount is the /Count the root /Pages node states (0 when absent): cheap, and only a claim. */
  get declaredPageCount(): number {
    const root = dictAt(this.latest, this.latest.catalog.get("Pages"));
    const count = root?.get("Count");
    return count instanceof PdfNumber && Number.isSafeInteger(count.value) && count.value > 0 ? count.value : 0;
  }

  /** latestEntries is every object's entry as the latest revision reads it (for a rebuilt cross-reference section). */
  latestEntries(): Map<number, XrefEntry> {
    const latest = this.revisions.length - 1;
    const entries = new Map<number, XrefEntry>();
    for (const number of this.history.keys()) entries.set(number, this.entryAt(number, latest)!);
    return entries;
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
    if (!(parsed.value instanceof PdfDict)) return this.decrypted(parsed.value, ref);
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
    const object = this.decrypted(body ? new PdfStream(parsed.value, body.data) : parsed.value, ref);
    this.resolved.set(key, object);
    return object;
  }

  /** decrypted is an object as read, decrypted when the file is encrypted (objects inside object streams are not: their stream was). */
  decrypted(value: PdfObject, ref: PdfRef): PdfObject {
    if (!this.decrypt) return value;
    try {
      return this.decrypt(value, ref.objectNumber, ref.generation);
    } catch (error) {
      if (error instanceof CipherError) throw new RevisionError(`object ${ref.objectNumber}: ${error.message}`);
      throw error;
    }
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
