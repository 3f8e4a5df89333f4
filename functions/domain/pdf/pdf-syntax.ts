import { PdfArray, PdfBool, PdfDict, PdfName, PdfNull, PdfNumber, PdfRef, PdfString, type PdfObject } from "@libpdf/core";

/**
 * A tokenizer and object parser for PDF syntax (ISO 32000-1, 7.2-7.3), used by verification to
 * read cross-reference sections, trailers and objects of each revision itself: strings (with
 * escapes and nesting), hex strings, comments, names with #xx escapes, nested arrays and
 * dictionaries. It never matches patterns over dictionary text: a key inside a string is string
 * content, as for every reader. Where readers could disagree (a dictionary that names a key twice)
 * it refuses.
 */

/** PdfSyntaxError says the bytes are not the PDF syntax the caller expected, and where. */
export class PdfSyntaxError extends Error {}

const WHITESPACE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const isRegular = (byte: number | undefined) => byte !== undefined && !WHITESPACE.has(byte) && !DELIMITERS.has(byte);
const isDigit = (byte: number | undefined) => byte !== undefined && byte >= 0x30 && byte <= 0x39;

/** MAX_NESTING bounds arrays and dictionaries inside each other (a stack guard). */
const MAX_NESTING = 64;

/** PdfLexer reads PDF tokens and direct objects from a byte range, starting at `at`. */
export class PdfLexer {
  constructor(
    readonly bytes: Buffer,
    public at = 0,
    readonly end = bytes.length,
  ) {}

  fail(what: string): never {
    throw new PdfSyntaxError(`${what} at byte ${this.at}`);
  }

  /** skipSpace passes whitespace and comments. */
  skipSpace(): void {
    const { bytes, end } = this;
    while (this.at < end) {
      const byte = bytes[this.at]!;
      if (WHITESPACE.has(byte)) this.at++;
      else if (byte === 0x25) {
        while (this.at < end && bytes[this.at] !== 0x0a && bytes[this.at] !== 0x0d) this.at++;
      } else break;
    }
  }

  /** keyword reads a run of regular characters (obj, stream, xref, trailer, R, true, ...) without consuming on mismatch when `expected` is given. */
  keyword(expected?: string): string | undefined {
    this.skipSpace();
    const start = this.at;
    let at = start;
    while (at < this.end && isRegular(this.bytes[at])) at++;
    const word = this.bytes.toString("latin1", start, at);
    if (expected !== undefined && word !== expected) return undefined;
    this.at = at;
    return word;
  }

  /** integer reads a non-negative integer token, or undefined (position unchanged) when the next token is not one. */
  integer(): number | undefined {
    this.skipSpace();
    let at = this.at;
    while (at < this.end && isDigit(this.bytes[at])) at++;
    if (at === this.at || at - this.at > 15 || isRegular(this.bytes[at])) return undefined;
    const value = Number(this.bytes.toString("latin1", this.at, at));
    this.at = at;
    return value;
  }

  /** value reads one direct object (a reference "n g R" counts as one). */
  value(depth = 0): PdfObject {
    if (depth > MAX_NESTING) this.fail("objects nested too deeply");
    this.skipSpace();
    if (this.at >= this.end) this.fail("the data ended where an object was expected");
    const byte = this.bytes[this.at]!;
    if (byte === 0x2f) return this.name();
    if (byte === 0x28) return this.literalString();
    if (byte === 0x3c) return this.bytes[this.at + 1] === 0x3c ? this.dictionary(depth) : this.hexString();
    if (byte === 0x5b) return this.array(depth);
    if (isDigit(byte) || byte === 0x2b || byte === 0x2d || byte === 0x2e) return this.numberOrReference();
    const word = this.keyword();
    if (word === "true") return PdfBool.of(true);
    if (word === "false") return PdfBool.of(false);
    if (word === "null") return PdfNull.instance;
    return this.fail(`an unexpected token "${(word ?? "").slice(0, 20)}"`);
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
    for (; at < this.end; at++) {
      const byte = this.bytes[at]!;
      if (isDigit(byte)) digits++;
      else if (byte === 0x2e) dots++;
      else break;
    }
    if (digits === 0 || dots > 1 || isRegular(this.bytes[at])) this.fail("a malformed number");
    const value = Number(this.bytes.toString("latin1", start, at));
    this.at = at;
    return PdfNumber.of(value);
  }

  /** name reads /Name, decoding #xx escapes. */
  name(): PdfName {
    this.skipSpace();
    if (this.bytes[this.at] !== 0x2f) this.fail("a name was expected");
    let at = this.at + 1;
    const out: number[] = [];
    while (at < this.end && isRegular(this.bytes[at])) {
      const byte = this.bytes[at]!;
      if (byte === 0x23) {
        const code = Number.parseInt(this.bytes.toString("latin1", at + 1, at + 3), 16);
        if (Number.isNaN(code)) this.fail("a malformed #xx escape in a name");
        out.push(code);
        at += 3;
      } else {
        out.push(byte);
        at++;
      }
    }
    this.at = at;
    return PdfName.of(Buffer.from(out).toString("latin1"));
  }

  private literalString(): PdfString {
    const { bytes, end } = this;
    const out: number[] = [];
    let nesting = 1;
    let at = this.at + 1;
    for (;;) {
      if (at >= end) this.fail("an unterminated string");
      const byte = bytes[at++]!;
      if (byte === 0x5c) {
        const next = bytes[at++];
        if (next === undefined) this.fail("an unterminated string");
        const simple: Record<number, number> = { 0x6e: 0x0a, 0x72: 0x0d, 0x74: 0x09, 0x62: 0x08, 0x66: 0x0c, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };
        if (simple[next] !== undefined) out.push(simple[next]!);
        else if (next >= 0x30 && next <= 0x37) {
          let code = next - 0x30;
          for (let digit = 0; digit < 2 && bytes[at]! >= 0x30 && bytes[at]! <= 0x37; digit++) code = code * 8 + (bytes[at++]! - 0x30);
          out.push(code & 0xff);
        } else if (next === 0x0d) {
          if (bytes[at] === 0x0a) at++;
        } else if (next !== 0x0a) out.push(next);
      } else if (byte === 0x28) {
        nesting++;
        out.push(byte);
      } else if (byte === 0x29) {
        if (--nesting === 0) break;
        out.push(byte);
      } else if (byte === 0x0d) {
        // An end-of-line in a literal string reads as a single line feed.
        if (bytes[at] === 0x0a) at++;
        out.push(0x0a);
      } else out.push(byte);
    }
    this.at = at;
    return new PdfString(Uint8Array.from(out), "literal");
  }

  private hexString(): PdfString {
    const close = this.bytes.indexOf(0x3e, this.at + 1);
    if (close < 0 || close >= this.end) this.fail("an unterminated hex string");
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
      if (this.at >= this.end) this.fail("an unterminated array");
      if (this.bytes[this.at] === 0x5d) break;
      items.push(this.value(depth + 1));
    }
    this.at++;
    return new PdfArray(items);
  }

  /** dictionary reads << ... >>; a key named twice is refused (readers disagree on which one counts). */
  dictionary(depth = 0): PdfDict {
    this.skipSpace();
    if (this.bytes[this.at] !== 0x3c || this.bytes[this.at + 1] !== 0x3c) this.fail("a dictionary was expected");
    this.at += 2;
    const entries = new Map<string, PdfObject>();
    for (;;) {
      this.skipSpace();
      if (this.at >= this.end) this.fail("an unterminated dictionary");
      if (this.bytes[this.at] === 0x3e && this.bytes[this.at + 1] === 0x3e) break;
      const key = this.name().value;
      if (entries.has(key)) this.fail(`a dictionary that names /${key} twice`);
      entries.set(key, this.value(depth + 1));
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
