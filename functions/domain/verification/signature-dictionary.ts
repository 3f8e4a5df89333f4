import { PdfArray, PdfDict, PdfNumber, type PdfObject, type PdfRef, PdfString } from "@libpdf/core";
import { same } from "#domain/pdf/objects.ts";
import { isDigit, isRegular, isWhitespace, PdfLexer, PdfSyntaxError, type Span } from "#domain/pdf/syntax.ts";

/**
 * A signature is only its own bytes. This module finds, in the raw file, the definition of one
 * signature dictionary inside the bytes its /ByteRange covers, with Signet's one tokenizer
 * (pdf/syntax.ts) rather than a regex that takes the first match, and checks that the
 * /ByteRange gap is exactly that dictionary's own /Contents string, and that the dictionary the
 * reader resolves is byte for byte that signed one.
 */

/** SignatureBytesError says why a signature dictionary does not own the signature value it points to. */
export class SignatureBytesError extends Error {}

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

/** gapContents reads the hex string that fills the gap, checked and decoded natively (never tokenized). */
function gapContents(bytes: Buffer, [start, end]: [number, number]): PdfString {
  if (bytes[start] !== 0x3c || bytes[start + 1] === 0x3c || bytes[end - 1] !== 0x3e) {
    throw new SignatureBytesError("the /ByteRange gap is not exactly this signature dictionary's /Contents string (the gap is not one hex string)");
  }
  const hex = bytes.toString("latin1", start + 1, end - 1);
  if (!HEX_ONLY.test(hex) || hex.length % 2 !== 0) {
    throw new SignatureBytesError("the /Contents string holds something other than an even number of hex digits");
  }
  return new PdfString(Uint8Array.from(Buffer.from(hex, "hex")), "hex");
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
    while (cursor > 0 && isWhitespace(bytes[cursor - 1])) cursor--;
    return cursor < end;
  };
  if (!spaceBack()) return undefined;
  const generation = integerBack();
  if (generation === undefined || !spaceBack()) return undefined;
  const objectNumber = integerBack();
  if (objectNumber === undefined || (cursor > 0 && isRegular(bytes[cursor - 1]))) return undefined;
  return { start: cursor, objectNumber, generation };
}

/** signedLexer reads the signed bytes from a header on: up to the gap, the gap as one value, then up to the signed end. */
function signedLexer(bytes: Buffer, start: number, gap: [number, number], signedEnd: number): PdfLexer {
  const opaque = { start: gap[0], end: gap[1], read: () => gapContents(bytes, gap) };
  // Names decode as PdfFile's lexer decodes them: the signed dictionary is compared with the one the view resolved.
  return new PdfLexer(bytes, start, signedEnd, { duplicateKeys: "record", opaque });
}

/** RawDecryptor decrypts an object as written in the file (PdfFile.decrypted; the identity for a file that is not encrypted). */
type RawDecryptor = (value: PdfObject, ref: PdfRef) => PdfObject;

/** parseCandidate reads the indirect object whose header starts where `lexer` is and checks that it owns the gap. */
function parseCandidate(lexer: PdfLexer, ref: PdfRef, dict: PdfDict, gap: [number, number], decrypt: RawDecryptor): LocatedSignature {
  const start = lexer.at;
  if (lexer.integer() === undefined || lexer.integer() === undefined || lexer.keyword("obj") === undefined) throw new PdfSyntaxError("no object header");
  const spans = new Map<string, Span>();
  const value = lexer.value(0, spans);
  if (!(value instanceof PdfDict)) throw new SignatureBytesError(`object ${ref.objectNumber} is not a dictionary in the signed bytes`);
  const contents = spans.get("Contents");
  if (!contents || contents[0] !== gap[0] || contents[1] !== gap[1]) {
    throw new SignatureBytesError("the /ByteRange gap is not exactly this signature dictionary's /Contents string");
  }
  if (lexer.keyword("endobj") === undefined) throw new SignatureBytesError("the signature dictionary does not end (endobj) inside the signed bytes");
  const duplicate = lexer.duplicates[0];
  if (duplicate) throw new SignatureBytesError(`the signature dictionary holds /${duplicate} twice (readers disagree on which counts)`);
  // An encrypted file's view holds decrypted strings; the signed bytes hold them encrypted.
  if (!same(decrypt(value, ref), dict)) {
    throw new SignatureBytesError("the signature dictionary readers show differs from the signed one (it was redefined after signing)");
  }
  const range = value.get("ByteRange");
  if (!(range instanceof PdfArray) || !range.toArray().every((item) => item instanceof PdfNumber && Number.isInteger(item.value) && !lexer.reals.has(item))) {
    throw new SignatureBytesError("the /ByteRange is not four integers");
  }
  const signature = value.get("Contents");
  if (!(signature instanceof PdfString) || signature.format !== "hex") throw new SignatureBytesError("/Contents is not a hex string");
  return { start, end: lexer.at, der: Buffer.from(signature.bytes) };
}

/**
 * SignatureLocator finds signature dictionaries in one file's bytes. locate finds the definition
 * of signature dictionary `ref` (as the latest view resolved it, `dict`) inside the signed bytes,
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
    private readonly decrypt: RawDecryptor = (value) => value,
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
      const lexer = signedLexer(bytes, header.start, gap, signedEnd);
      try {
        return parseCandidate(lexer, ref, dict, gap, this.decrypt);
      } catch (error) {
        if (!(error instanceof SignatureBytesError) && !(error instanceof PdfSyntaxError)) throw error;
        problem ??= error instanceof PdfSyntaxError ? `the signed signature dictionary cannot be read (${error.message})` : error.message;
      } finally {
        this.budget -= lexer.reach - header.start;
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
