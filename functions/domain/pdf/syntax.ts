import { PdfArray, PdfBool, PdfDict, PdfName, PdfNull, PdfNumber, PdfRef, PdfString, type PdfObject } from "@libpdf/core";

/**
 * Signet's one tokenizer and object parser for PDF syntax (ISO 32000-1, 7.2-7.3): strings (with
 * escapes and nesting), hex strings, comments, names with #xx escapes, nested arrays and
 * dictionaries. Verification reads cross-reference sections, trailers and objects of each revision
 * with it, and finds each signature dictionary inside its signed bytes with it. It never matches
 * patterns over dictionary text: a key inside a string is string content, as for every reader.
 * Where readers could disagree (a dictionary that names a key twice) it refuses, or records the
 * key for a caller that names the problem itself.
 */

/** PdfSyntaxError says the bytes are not the PDF syntax the caller expected, and where. */
export class PdfSyntaxError extends Error {}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
/** isWhitespace tells whether a byte is PDF whitespace. */
export const isWhitespace = (byte: number | undefined) => byte !== undefined && WHITESPACE.has(byte);
/** isRegular tells whether a byte is a regular character (neither whitespace nor a delimiter). */
export const isRegular = (byte: number | undefined) => byte !== undefined && !WHITESPACE.has(byte) && !DELIMITERS.has(byte);
/** isDigit tells whether a byte is 0-9. */
export const isDigit = (byte: number | undefined) => byte !== undefined && byte >= 0x30 && byte <= 0x39;
const isHex = (byte: number | undefined) => byte !== undefined && (isDigit(byte) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66));
const hexValue = (byte: number): number => (byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x57);
const ESCAPES: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };

/** MAX_NESTING bounds arrays and dictionaries inside each other (a stack guard). */
const MAX_NESTING = 64;

/** Span is where a value was written: [start, end). */
export type Span = [number, number];

/**
 * OpaqueRange is a byte range the lexer never tokenizes (a signature's /Contents gap): the value
 * written exactly at `start` is whatever `read` returns, reading goes on at `end`, and no other
 * token may reach into it.
 */
export interface OpaqueRange {
  start: number;
  end: number;
  read(): PdfObject;
}

/** PdfLexerOptions adapt the lexer to the reader whose view a caller must match. */
export interface PdfLexerOptions {
  /**
   * How names decode. "bytes" (the default): one character per byte, and a # not followed by two
   * hex digits is refused. "libpdf": as @libpdf/core decodes them (names with #xx escapes as
   * UTF-8, a # without two hex digits kept as it is), for comparing with what libpdf resolved.
   */
  names?: "bytes" | "libpdf";
  /** A key named twice: "refuse" (the default) fails; "record" keeps the last value and lists the key in `duplicates`. */
  duplicateKeys?: "refuse" | "record";
  /** A range read as one value, never tokenized. */
  opaque?: OpaqueRange;
}

/**
 * PdfLexer reads PDF tokens and direct objects from a byte range, starting at `at` and reading
 * nothing at or after `end` (nor inside an opaque range but through its `read`).
 */
export class PdfLexer {
  /** Keys named twice, when the options say to record them. */
  readonly duplicates: string[] = [];
  /** Numbers written with a decimal point (PDF reals), for a caller that needs integers as written. */
  readonly reals = new WeakSet<PdfNumber>();
  /** Where reading stops now: before the opaque range until it is read, then `end`. */
  private limit: number;
  /** The furthest byte a failed string scan examined (the position stays at the string's start, for the message). */
  private scanned = 0;

  constructor(
    readonly bytes: Buffer,
    public at = 0,
    readonly end = bytes.length,
    private readonly options: PdfLexerOptions = {},
  ) {
    const opaque = options.opaque;
    this.limit = opaque && opaque.start >= at ? Math.min(end, opaque.start) : end;
  }

  fail(what: string): never {
    throw new PdfSyntaxError(`${what} at byte ${this.at}`);
  }

  /** reach is how far the lexer has examined the bytes, for callers that bound the work spent reading. */
  get reach(): number {
    return Math.max(this.at, this.scanned);
  }

  private unterminated(what: string): never {
    this.scanned = this.limit;
    return this.fail(`an unterminated ${what}`);
  }

  /** skipSpace passes whitespace and comments. */
  skipSpace(): void {
    const { bytes, limit } = this;
    while (this.at < limit) {
      const byte = bytes[this.at]!;
      if (WHITESPACE.has(byte)) this.at++;
      else if (byte === 0x25) {
        while (this.at < limit && bytes[this.at] !== 0x0a && bytes[this.at] !== 0x0d) this.at++;
      } else break;
    }
  }

  /** keyword reads a run of regular characters (obj, stream, xref, trailer, R, true, ...) without consuming on mismatch when `expected` is given. */
  keyword(expected?: string): string | undefined {
    this.skipSpace();
    const start = this.at;
    let at = start;
    while (at < this.limit && isRegular(this.bytes[at])) at++;
    const word = this.bytes.toString("latin1", start, at);
    if (expected !== undefined && word !== expected) return undefined;
    this.at = at;
    return word;
  }

  /** integer reads a non-negative integer token, or undefined (position unchanged) when the next token is not one. */
  integer(): number | undefined {
    this.skipSpace();
    let at = this.at;
    while (at < this.limit && isDigit(this.bytes[at])) at++;
    if (at === this.at || at - this.at > 15 || (at < this.limit && isRegular(this.bytes[at]))) return undefined;
    const value = Number(this.bytes.toString("latin1", this.at, at));
    this.at = at;
    return value;
  }

  /** value reads one direct object (a reference "n g R" counts as one); `spans`, when given, receives where each entry of a dictionary value was written. */
  value(depth = 0, spans?: Map<string, Span>): PdfObject {
    if (depth > MAX_NESTING) this.fail("objects nested too deeply");
    this.skipSpace();
    const opaque = this.options.opaque;
    if (opaque && this.at === opaque.start && this.limit === opaque.start) return this.readOpaque(opaque);
    if (this.at >= this.limit) this.fail("the data ended where an object was expected");
    const byte = this.bytes[this.at]!;
    if (byte === 0x2f) return this.name();
    if (byte === 0x28) return this.literalString();
    if (byte === 0x3c) return this.bytes[this.at + 1] === 0x3c ? this.dictionary(depth, spans) : this.hexString();
    if (byte === 0x5b) return this.array(depth);
    if (isDigit(byte) || byte === 0x2b || byte === 0x2d || byte === 0x2e) return this.numberOrReference();
    const word = this.keyword();
    if (word === "true") return PdfBool.of(true);
    if (word === "false") return PdfBool.of(false);
    if (word === "null") return PdfNull.instance;
    return this.fail(`an unexpected token "${(word ?? "").slice(0, 20)}"`);
  }

  private readOpaque(opaque: OpaqueRange): PdfObject {
    const value = opaque.read();
    this.at = opaque.end;
    this.limit = this.end;
    return value;
  }

  private numberOrReference(): PdfObject {
    const start = this.at;
    const first = this.integer();
    if (first !== undefined) {
      const afterFirst = this.at;
      const generation = this.integer();
      if (generation !== undefined && this.keyword("R") !== undefined) return PdfRef.of(first, generation);
      this.at = afterFirst;
      return PdfNumber.of(first);
    }
    this.at = start;
    let at = start;
    if (this.bytes[at] === 0x2b || this.bytes[at] === 0x2d) at++;
    let digits = 0;
    let dots = 0;
    for (; at < this.limit; at++) {
      const byte = this.bytes[at]!;
      if (isDigit(byte)) digits++;
      else if (byte === 0x2e) dots++;
      else break;
    }
    if (digits === 0 || dots > 1 || (at < this.limit && isRegular(this.bytes[at]))) this.fail("a malformed number");
    const value = PdfNumber.of(Number(this.bytes.toString("latin1", start, at)));
    if (dots > 0) this.reals.add(value);
    this.at = at;
    return value;
  }

  /** name reads /Name, decoding #xx escapes as the options say. */
  name(): PdfName {
    this.skipSpace();
    if (this.at >= this.limit || this.bytes[this.at] !== 0x2f) this.fail("a name was expected");
    const libpdf = this.options.names === "libpdf";
    let at = this.at + 1;
    const out: number[] = [];
    let escaped = false;
    while (at < this.limit && isRegular(this.bytes[at])) {
      const byte = this.bytes[at]!;
      const isEscape = byte === 0x23 && at + 2 < this.limit && isHex(this.bytes[at + 1]) && isHex(this.bytes[at + 2]);
      if (isEscape) {
        out.push((hexValue(this.bytes[at + 1]!) << 4) | hexValue(this.bytes[at + 2]!));
        escaped = true;
        at += 3;
        continue;
      }
      if (byte === 0x23 && !libpdf) {
        this.at = at;
        this.fail("a malformed #xx escape in a name");
      }
      out.push(byte);
      at++;
    }
    this.at = at;
    // libpdf decodes names with #xx escapes as UTF-8, others byte for byte.
    const decoded = libpdf && escaped ? new TextDecoder().decode(Uint8Array.from(out)) : Buffer.from(out).toString("latin1");
    return PdfName.of(decoded);
  }

  private literalString(): PdfString {
    const { bytes, limit } = this;
    const out: number[] = [];
    let nesting = 1;
    let at = this.at + 1;
    for (;;) {
      if (at >= limit) this.unterminated("string");
      const byte = bytes[at++]!;
      if (byte === 0x5c) {
        if (at >= limit) this.unterminated("string");
        at = this.escape(at, out);
      } else if (byte === 0x28) {
        nesting++;
        out.push(byte);
      } else if (byte === 0x29) {
        if (--nesting === 0) break;
        out.push(byte);
      } else if (byte === 0x0d) {
        // An end-of-line in a literal string reads as a single line feed.
        if (at < limit && bytes[at] === 0x0a) at++;
        out.push(0x0a);
      } else out.push(byte);
    }
    this.at = at;
    return new PdfString(Uint8Array.from(out), "literal");
  }

  /** escape decodes the escape after a backslash (the byte at `at`) into `out`, returning where the string goes on. */
  private escape(at: number, out: number[]): number {
    const { bytes, limit } = this;
    const next = bytes[at++]!;
    if (ESCAPES[next] !== undefined) out.push(ESCAPES[next]!);
    else if (next >= 0x30 && next <= 0x37) {
      let code = next - 0x30;
      for (let digit = 0; digit < 2 && at < limit && bytes[at]! >= 0x30 && bytes[at]! <= 0x37; digit++) code = code * 8 + (bytes[at++]! - 0x30);
      out.push(code & 0xff);
    } else if (next === 0x0d) {
      if (at < limit && bytes[at] === 0x0a) at++;
    } else if (next !== 0x0a) out.push(next);
    return at;
  }

  private hexString(): PdfString {
    const close = this.bytes.subarray(0, this.limit).indexOf(0x3e, this.at + 1);
    if (close < 0) this.unterminated("hex string");
    const digits = this.bytes.toString("latin1", this.at + 1, close).replace(/[\0\t\n\f\r ]/g, "");
    if (!/^[0-9a-fA-F]*$/.test(digits)) this.fail("a malformed hex string");
    this.at = close + 1;
    return new PdfString(Uint8Array.from(Buffer.from(digits.length % 2 ? `${digits}0` : digits, "hex")), "hex");
  }

  private array(depth: number): PdfArray {
    this.at++;
    const items: PdfObject[] = [];
    for (;;) {
      this.skipSpace();
      if (this.at >= this.limit) this.fail("an unterminated array");
      if (this.bytes[this.at] === 0x5d) break;
      items.push(this.value(depth + 1));
    }
    this.at++;
    return new PdfArray(items);
  }

  /** dictionary reads << ... >>; a key named twice is refused or recorded (readers disagree on which one counts); `spans` receives where each value was written. */
  dictionary(depth = 0, spans?: Map<string, Span>): PdfDict {
    this.skipSpace();
    if (this.bytes[this.at] !== 0x3c || this.bytes[this.at + 1] !== 0x3c) this.fail("a dictionary was expected");
    this.at += 2;
    const entries = new Map<string, PdfObject>();
    for (;;) {
      this.skipSpace();
      if (this.at + 1 >= this.limit) this.fail("an unterminated dictionary");
      if (this.bytes[this.at] === 0x3e && this.bytes[this.at + 1] === 0x3e) break;
      const key = this.name().value;
      if (entries.has(key)) {
        if (this.options.duplicateKeys !== "record") this.fail(`a dictionary that names /${key} twice`);
        this.duplicates.push(key);
      }
      this.skipSpace();
      const start = this.at;
      entries.set(key, this.value(depth + 1));
      spans?.set(key, [start, this.at]);
    }
    this.at += 2;
    return new PdfDict([...entries]);
  }
}

/** ObjectHeader is an "n g obj" line and where the object's value starts. */
export interface ObjectHeader {
  number: number;
  generation: number;
  valueAt: number;
}

/** readObjectHeader reads "n g obj" at an offset (after optional whitespace), or fails naming the offset. */
export function readObjectHeader(bytes: Buffer, offset: number): ObjectHeader {
  const lexer = new PdfLexer(bytes, offset);
  const number = lexer.integer();
  const generation = lexer.integer();
  if (number === undefined || generation === undefined || lexer.keyword("obj") === undefined) {
    throw new PdfSyntaxError(`no "n g obj" header at byte ${offset}`);
  }
  return { number, generation, valueAt: lexer.at };
}

/**
 * streamDataStart finds where a stream's data begins after its dictionary (at `at`): the
 * `stream` keyword followed by CRLF or LF; undefined when no `stream` keyword follows.
 */
export function streamDataStart(bytes: Buffer, at: number): number | undefined {
  const lexer = new PdfLexer(bytes, at);
  if (lexer.keyword("stream") === undefined) return undefined;
  if (bytes[lexer.at] === 0x0d && bytes[lexer.at + 1] === 0x0a) return lexer.at + 2;
  if (bytes[lexer.at] === 0x0a) return lexer.at + 1;
  throw new PdfSyntaxError(`the stream keyword at byte ${at} is not followed by an end of line`);
}

/** endstreamFollows tells whether `endstream` follows the stream data ending at `at` (after an optional end of line). */
export function endstreamFollows(bytes: Buffer, at: number): boolean {
  let next = at;
  while (next < at + 2 && (bytes[next] === 0x0d || bytes[next] === 0x0a)) next++;
  return bytes.toString("latin1", next, next + 9) === "endstream";
}
