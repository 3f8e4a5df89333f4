import { PdfArray, PdfBool, PdfDict, PdfName, PdfNull, PdfNumber, type PdfObject, PdfRef, PdfStream, PdfString } from "@libpdf/core";

/**
 * A signature is only its own bytes. This module finds, in the raw file, the definition of one
 * signature dictionary inside the bytes its /ByteRange covers, with a tokenizer (strings, hex
 * strings, names, comments, nested arrays and dictionaries) rather than a regex that takes the
 * first match, and checks that the /ByteRange gap is exactly that dictionary's own /Contents
 * string, and that the dictionary the reader resolves is byte for byte that signed one.
 */

/** SignatureBytesError says why a signature dictionary does not own the signature value it points to. */
export class SignatureBytesError extends Error {}

/** Token kinds the tokenizer produces, each with its byte span [start, end). */
type Value =
  | { kind: "name"; value: string; start: number; end: number }
  | { kind: "string"; bytes: Uint8Array; hex: boolean; start: number; end: number }
  | { kind: "number"; value: number; integer: boolean; start: number; end: number }
  | { kind: "bool"; value: boolean; start: number; end: number }
  | { kind: "null"; start: number; end: number }
  | { kind: "ref"; objectNumber: number; generation: number; start: number; end: number }
  | { kind: "array"; items: Value[]; start: number; end: number }
  | { kind: "dict"; entries: Map<string, Value>; duplicate?: string; start: number; end: number };

/** LocatedSignature is one signature dictionary as its signed bytes hold it. */
export interface LocatedSignature {
  /** Offset of its "N G obj" header. */
  start: number;
  /** Offset just after its "endobj". */
  end: number;
  /** The DER signature value: the /Contents bytes without their zero padding. */
  der: Buffer;
}

// How far before the gap a signature dictionary's header may be, and how many "N G obj" headers of
// the right number are tried there. The dictionary may end anywhere in the signed bytes (Signet's
// own audit record follows /Contents and can take megabytes): SignatureLocator's budget keeps the
// total reading linear in the file's size. The gap itself is one native check, never the loop.
const HEADER_WINDOW = 256 * 1024;
const MAX_CANDIDATES = 4;
const HEX_ONLY = /^[0-9A-Fa-f]*$/;
const MAX_DEPTH = 32;

const isWhite = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const isDelimiter = (byte: number | undefined) => byte !== undefined && DELIMITERS.has(byte);
const isRegular = (byte: number | undefined) => byte !== undefined && !isWhite(byte) && !isDelimiter(byte);
const isDigit = (byte: number | undefined) => byte !== undefined && byte >= 0x30 && byte <= 0x39;
const hexValue = (byte: number): number => (byte <= 0x39 ? byte - 0x30 : (byte | 0x20) - 0x57);
const isHex = (byte: number | undefined) => byte !== undefined && (isDigit(byte) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66));

class SyntaxProblem extends Error {}

/**
 * Tokenizer reads PDF objects from `bytes`, strictly (no repair). It reads nothing at or after the
 * gap's start but a hex string starting exactly there (taken whole), and then up to `tailLimit`.
 */
class Tokenizer {
  private limit: number;

  constructor(
    private readonly bytes: Buffer,
    public pos: number,
    private readonly gap: [number, number],
    private readonly tailLimit: number,
  ) {
    this.limit = gap[0];
  }

  private fail(what: string): never {
    throw new SyntaxProblem(`${what} at offset ${this.pos}`);
  }

  private peek(): number | undefined {
    return this.pos < this.limit ? this.bytes[this.pos] : undefined;
  }

  skipSpace(): void {
    while (this.pos < this.limit) {
      const byte = this.bytes[this.pos];
      if (isWhite(byte)) this.pos++;
      else if (byte === 0x25) {
        while (this.pos < this.limit && this.bytes[this.pos] !== 0x0a && this.bytes[this.pos] !== 0x0d) this.pos++;
      } else return;
    }
  }

  keyword(): string {
    this.skipSpace();
    const start = this.pos;
    while (isRegular(this.peek())) this.pos++;
    return this.bytes.toString("latin1", start, this.pos);
  }

  private integerAt(at: number): { value: number; end: number } | undefined {
    let end = at;
    while (end < this.limit && isDigit(this.bytes[end])) end++;
    if (end === at || end - at > 10 || isRegular(this.bytes[end])) return undefined;
    return { value: Number(this.bytes.toString("latin1", at, end)), end };
  }

  value(depth = 0): Value {
    if (depth > MAX_DEPTH) this.fail("objects nested too deeply");
    this.skipSpace();
    const start = this.pos;
    if (start === this.gap[0] && this.limit === start) return this.gapString(start);
    const byte = this.peek();
    if (byte === undefined) this.fail("the object ends early");
    if (byte === 0x2f) return this.name(start);
    if (byte === 0x28) return this.literal(start);
    if (byte === 0x3c && this.bytes[this.pos + 1] === 0x3c) return this.dictionary(start, depth);
    if (byte === 0x3c) return this.hexString(start);
    if (byte === 0x5b) {
      this.pos++;
      const items: Value[] = [];
      for (;;) {
        this.skipSpace();
        if (this.peek() === 0x5d) {
          this.pos++;
          return { kind: "array", items, start, end: this.pos };
        }
        items.push(this.value(depth + 1));
      }
    }
    if (isDigit(byte) || byte === 0x2b || byte === 0x2d || byte === 0x2e) return this.number(start);
    const word = this.keyword();
    if (word === "true" || word === "false") return { kind: "bool", value: word === "true", start, end: this.pos };
    if (word === "null") return { kind: "null", start, end: this.pos };
    this.pos = start;
    return this.fail(word ? `an unexpected keyword "${word.slice(0, 20)}"` : "an unexpected delimiter");
  }

  private number(start: number): Value {
    const integer = this.integerAt(start);
    if (integer) {
      // "N G R" is a reference.
      let at = integer.end;
      while (at < this.limit && isWhite(this.bytes[at])) at++;
      const generation = at > integer.end ? this.integerAt(at) : undefined;
      if (generation) {
        let r = generation.end;
        while (r < this.limit && isWhite(this.bytes[r])) r++;
        if (r > generation.end && this.bytes[r] === 0x52 && !isRegular(this.bytes[r + 1])) {
          this.pos = r + 1;
          return { kind: "ref", objectNumber: integer.value, generation: generation.value, start, end: this.pos };
        }
      }
      this.pos = integer.end;
      return { kind: "number", value: integer.value, integer: true, start, end: this.pos };
    }
    const text = this.keyword();
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(text)) {
      this.pos = start;
      this.fail("a malformed number");
    }
    return { kind: "number", value: Number(text), integer: /^[+-]?\d+$/.test(text), start, end: this.pos };
  }

  private name(start: number): Value {
    this.pos++;
    const raw: number[] = [];
    let escaped = false;
    while (isRegular(this.peek())) {
      const byte = this.bytes[this.pos++]!;
      if (byte === 0x23 && isHex(this.peek()) && isHex(this.bytes[this.pos + 1])) {
        raw.push((hexValue(this.bytes[this.pos]!) << 4) | hexValue(this.bytes[this.pos + 1]!));
        this.pos += 2;
        escaped = true;
      } else raw.push(byte);
    }
    // As libpdf: names with #xx escapes decode as UTF-8, others byte for byte.
    const value = escaped ? new TextDecoder().decode(new Uint8Array(raw)) : Buffer.from(raw).toString("latin1");
    return { kind: "name", value, start, end: this.pos };
  }

  private literal(start: number): Value {
    this.pos++;
    const out: number[] = [];
    let depth = 1;
    for (;;) {
      const byte = this.peek();
      if (byte === undefined) this.fail("an unterminated string");
      this.pos++;
      if (byte === 0x28) depth++;
      else if (byte === 0x29 && --depth === 0) return { kind: "string", bytes: new Uint8Array(out), hex: false, start, end: this.pos };
      if (byte === 0x5c) {
        const next = this.peek();
        if (next === undefined) continue;
        this.pos++;
        const simple: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };
        if (simple[next] !== undefined) out.push(simple[next]);
        else if (next === 0x0d) {
          if (this.peek() === 0x0a) this.pos++;
        } else if (next === 0x0a) {
          // A line continuation.
        } else if (next >= 0x30 && next <= 0x37) {
          let value = next - 0x30;
          for (let digits = 1; digits < 3 && (this.peek() ?? 0) >= 0x30 && (this.peek() ?? 0) <= 0x37; digits++)
            value = (value << 3) | (this.bytes[this.pos++]! - 0x30);
          out.push(value & 0xff);
        } else out.push(next);
        continue;
      }
      if (byte === 0x0d) {
        if (this.peek() === 0x0a) this.pos++;
        out.push(0x0a);
        continue;
      }
      out.push(byte);
    }
  }

  private hexString(start: number): Value {
    this.pos++;
    const out: number[] = [];
    let pending: number | undefined;
    for (;;) {
      const byte = this.peek();
      if (byte === undefined) this.fail("an unterminated hex string");
      this.pos++;
      if (byte === 0x3e) break;
      if (isWhite(byte)) continue;
      if (!isHex(byte)) this.fail("a hex string with a character that is not a hex digit");
      if (pending === undefined) pending = hexValue(byte);
      else {
        out.push((pending << 4) | hexValue(byte));
        pending = undefined;
      }
    }
    if (pending !== undefined) out.push(pending << 4);
    return { kind: "string", bytes: Buffer.from(out), hex: true, start, end: this.pos };
  }

  /** gapString takes the hex string that fills the gap, checked and decoded natively. */
  private gapString(start: number): Value {
    const [, end] = this.gap;
    if (this.bytes[start] !== 0x3c || this.bytes[start + 1] === 0x3c || this.bytes[end - 1] !== 0x3e) {
      throw new SignatureBytesError("the /ByteRange gap is not exactly this signature dictionary's /Contents string (the gap is not one hex string)");
    }
    const hex = this.bytes.toString("latin1", start + 1, end - 1);
    if (!HEX_ONLY.test(hex) || hex.length % 2 !== 0) {
      throw new SignatureBytesError("the /Contents string holds something other than an even number of hex digits");
    }
    this.pos = end;
    this.limit = this.tailLimit;
    return { kind: "string", bytes: Buffer.from(hex, "hex"), hex: true, start, end };
  }

  private dictionary(start: number, depth: number): Value {
    this.pos += 2;
    const entries = new Map<string, Value>();
    let duplicate: string | undefined;
    for (;;) {
      this.skipSpace();
      if (this.peek() === 0x3e && this.bytes[this.pos + 1] === 0x3e) {
        this.pos += 2;
        return { kind: "dict", entries, ...(duplicate ? { duplicate } : {}), start, end: this.pos };
      }
      const key = this.value(depth + 1);
      if (key.kind !== "name") this.fail("a dictionary key that is not a name");
      const value = this.value(depth + 1);
      if (entries.has(key.value)) duplicate ??= key.value;
      entries.set(key.value, value);
    }
  }
}

/** sameValue tells whether a tokenized value is what libpdf resolved (references compared as references). */
function sameValue(value: Value, object: PdfObject | undefined): boolean {
  switch (value.kind) {
    case "name":
      return object instanceof PdfName && object.value === value.value;
    case "string":
      return object instanceof PdfString && Buffer.from(object.bytes).equals(Buffer.from(value.bytes));
    case "number":
      return object instanceof PdfNumber && object.value === value.value;
    case "bool":
      return object instanceof PdfBool && object.value === value.value;
    case "null":
      return object instanceof PdfNull;
    case "ref":
      return object instanceof PdfRef && object.objectNumber === value.objectNumber && object.generation === value.generation;
    case "array":
      return object instanceof PdfArray && object.length === value.items.length && value.items.every((item, index) => sameValue(item, object.at(index)));
    case "dict": {
      if (!(object instanceof PdfDict) || object instanceof PdfStream || value.duplicate) return false;
      const keys = [...object.keys()].map((key) => key.value);
      return keys.length === value.entries.size && keys.every((key) => value.entries.has(key) && sameValue(value.entries.get(key)!, object.get(key)));
    }
  }
}

/** headerBefore reads "N G" just before an "obj" keyword at `at`, when it is one. */
function headerBefore(bytes: Buffer, at: number): { start: number; objectNumber: number; generation: number } | undefined {
  if (isRegular(bytes[at + 3])) return undefined;
  let cursor = at;
  const integerBack = (): number | undefined => {
    const end = cursor;
    while (cursor > 0 && isDigit(bytes[cursor - 1])) cursor--;
    if (cursor === end || end - cursor > 10) return undefined;
    return Number(bytes.toString("latin1", cursor, end));
  };
  const spaceBack = (): boolean => {
    const end = cursor;
    while (cursor > 0 && isWhite(bytes[cursor - 1])) cursor--;
    return cursor < end;
  };
  if (!spaceBack()) return undefined;
  const generation = integerBack();
  if (generation === undefined || !spaceBack()) return undefined;
  const objectNumber = integerBack();
  if (objectNumber === undefined || (cursor > 0 && isRegular(bytes[cursor - 1]))) return undefined;
  return { start: cursor, objectNumber, generation };
}

/** parseCandidate reads the indirect object whose header starts at `start` and checks that it owns the gap. */
function parseCandidate(tokens: Tokenizer, start: number, ref: PdfRef, dict: PdfDict, gap: [number, number]): LocatedSignature {
  tokens.keyword();
  tokens.keyword();
  if (tokens.keyword() !== "obj") throw new SyntaxProblem("no object header");
  const value = tokens.value();
  if (value.kind !== "dict") throw new SignatureBytesError(`object ${ref.objectNumber} is not a dictionary in the signed bytes`);
  const contents = value.entries.get("Contents");
  if (!contents || contents.start !== gap[0] || contents.end !== gap[1]) {
    throw new SignatureBytesError("the /ByteRange gap is not exactly this signature dictionary's /Contents string");
  }
  if (tokens.keyword() !== "endobj") throw new SignatureBytesError("the signature dictionary does not end (endobj) inside the signed bytes");
  if (value.duplicate) throw new SignatureBytesError(`the signature dictionary holds /${value.duplicate} twice (readers disagree on which counts)`);
  if (!sameValue(value, dict)) {
    throw new SignatureBytesError("the signature dictionary readers show differs from the signed one (it was redefined after signing)");
  }
  const range = value.entries.get("ByteRange");
  if (range?.kind !== "array" || !range.items.every((item) => item.kind === "number" && item.integer)) {
    throw new SignatureBytesError("the /ByteRange is not four integers");
  }
  if (contents.kind !== "string" || !contents.hex) throw new SignatureBytesError("/Contents is not a hex string");
  return { start, end: tokens.pos, der: Buffer.from(contents.bytes) };
}

/**
 * SignatureLocator finds signature dictionaries in one file's bytes. locate finds the definition
 * of signature dictionary `ref` (as libpdf resolved it, `dict`) inside the signed bytes,
 * [0, signedEnd), such that the /ByteRange gap is exactly its /Contents hex string, and returns
 * where it is and the raw signature value. It throws SignatureBytesError when no such definition
 * exists: the dictionary then does not own the signature value (a new dictionary borrowing
 * another signature's /ByteRange and CMS, a dictionary redefined after signing, signed bytes moved
 * around, content inserted in the gap). Answers are kept per (dictionary, gap), and the bytes read
 * for one file are bounded by twice its size plus a window per signature.
 */
export class SignatureLocator {
  private readonly answers = new Map<string, LocatedSignature | SignatureBytesError>();
  private budget: number;

  constructor(
    private readonly bytes: Buffer,
    signatures: number,
  ) {
    this.budget = 2 * bytes.length + signatures * HEADER_WINDOW;
  }

  locate(ref: PdfRef, dict: PdfDict, gap: [number, number], signedEnd: number): LocatedSignature {
    const key = `${ref.objectNumber} ${ref.generation}:${gap[0]}:${gap[1]}:${signedEnd}`;
    let answer = this.answers.get(key);
    if (!answer) {
      try {
        answer = this.search(ref, dict, gap, signedEnd);
      } catch (error) {
        if (!(error instanceof SignatureBytesError)) throw error;
        answer = error;
      }
      this.answers.set(key, answer);
    }
    if (answer instanceof SignatureBytesError) throw answer;
    return answer;
  }

  private search(ref: PdfRef, dict: PdfDict, gap: [number, number], signedEnd: number): LocatedSignature {
    const { bytes } = this;
    const obj = Buffer.from("obj", "latin1");
    const windowStart = Math.max(0, gap[0] - HEADER_WINDOW);
    const window = bytes.subarray(windowStart, gap[0]);
    this.budget -= window.length;
    let problem: string | undefined;
    let tried = 0;
    for (let from = window.length - 3; from >= 0 && tried < MAX_CANDIDATES; ) {
      const found = window.lastIndexOf(obj, from);
      if (found < 0) break;
      from = found - 1;
      const header = headerBefore(bytes, windowStart + found);
      if (!header || header.objectNumber !== ref.objectNumber || header.generation !== ref.generation) continue;
      if (this.budget <= 0) throw new SignatureBytesError("reading the signature dictionaries takes more work than the file's size allows");
      tried++;
      const tokens = new Tokenizer(bytes, header.start, gap, signedEnd);
      try {
        return parseCandidate(tokens, header.start, ref, dict, gap);
      } catch (error) {
        if (!(error instanceof SignatureBytesError) && !(error instanceof SyntaxProblem)) throw error;
        problem ??= error instanceof SyntaxProblem ? `the signed signature dictionary cannot be read (${error.message})` : error.message;
      } finally {
        this.budget -= tokens.pos - header.start;
      }
    }
    throw new SignatureBytesError(
      problem ??
        `the signature dictionary (object ${ref.objectNumber} ${ref.generation}) is not inside the bytes its /ByteRange covers, so the signature value is not its own`,
    );
  }
}

/** checkPadding refuses a /Contents value holding anything but one DER object (ending at `elementEnd`) and zero padding. */
export function checkPadding(padded: Buffer, elementEnd: number): void {
  if (elementEnd > padded.length) throw new SignatureBytesError("the signature value is truncated");
  if (padded.subarray(elementEnd).some((byte) => byte !== 0)) {
    throw new SignatureBytesError("the /Contents string holds more than one DER object and zero padding");
  }
}
