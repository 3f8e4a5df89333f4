import { isAscii } from "node:buffer";
import { randomBytes } from "node:crypto";
import { SignetError } from "#domain/shared/errors.ts";

const LONG_LITERAL = 64 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** JsonScan is what one pass over a JSON text finds before it is parsed. */
interface JsonScan {
  /** Objects/arrays nest deeper than the limit (the scan stops there). */
  tooDeep: boolean;
  /**
   * String values (not member names) of at least 64 KB of ASCII without escapes, as [start, end)
   * of their content: their text is their bytes.
   */
  literals: Array<[number, number]>;
}

/**
 * scanJson walks a JSON text (as bytes) once, before any parsing: it counts nesting and notes the
 * long plain values, without allocating. Strings are skipped with indexOf (native), so a body that
 * is mostly one long base64 string costs next to nothing. An unterminated string ends the scan
 * with nothing found; the parser then reports the body as it is.
 */
function scanJson(bytes: Buffer, maxDepth: number): JsonScan {
  const literals: Array<[number, number]> = [];
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      const start = i + 1;
      // The closing quote: one not preceded by an odd number of backslashes.
      let close = i;
      for (;;) {
        close = bytes.indexOf(QUOTE, close + 1);
        if (close === -1) return { tooDeep: false, literals: [] };
        let backslashes = 0;
        while (bytes[close - 1 - backslashes] === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      if (close - start >= LONG_LITERAL && !isMemberName(bytes, close + 1)) {
        const content = bytes.subarray(start, close);
        if (content.indexOf(BACKSLASH) === -1 && isAscii(content)) literals.push([start, close]);
      }
      i = close;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return { tooDeep: true, literals };
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return { tooDeep: false, literals };
}

/** jsonDepthExceeds tells whether the JSON text nests objects/arrays deeper than maxDepth (see scanJson). */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  return scanJson(Buffer.from(text, "utf8"), maxDepth).tooDeep;
}

/** ParsedJsonBody is a parsed body and, when it could be, its `document.base64` decoded straight from the body's bytes. */
export interface ParsedJsonBody {
  value: unknown;
  /** The decoded document; `value.document.base64` then holds `placeholder` (a string, for the schema). */
  document?: { placeholder: string; bytes: Buffer };
}

/**
 * parseJsonBody turns a request body into a value, with the errors docs/errors.md lists. Long plain
 * string values (a document's base64) are lifted out before parsing (see scanJson): they become
 * strings straight from the bytes, once, instead of a decoded copy of the whole body plus the
 * parser's copy of each.
 */
export function parseJsonBody(body: string | Buffer, maxDepth: number): unknown {
  return readJsonBody(body, maxDepth, false).value;
}

/**
 * readJsonBody is parseJsonBody that, with decodeDocument, also decodes a long top-level
 * `document.base64` from the body's bytes when it is canonical base64 or base64url without
 * whitespace (see decodeCanonicalBase64): no string of the whole value is made. Any other text
 * (a data URI, line breaks, bad characters) stays a string for the usual checks and errors.
 */
export function readJsonBody(body: string | Buffer, maxDepth: number, decodeDocument: boolean): ParsedJsonBody {
  const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
  const { tooDeep, literals } = scanJson(bytes, maxDepth);
  const nonce = literals.length > 0 ? randomBytes(12).toString("hex") : "";
  const text = literals.length > 0 ? withMarkers(bytes, literals, nonce) : typeof body === "string" ? body : bytes.toString("utf8");
  if (text.trim() === "") {
    throw new SignetError("VALIDATION_ERROR", "The request body is empty; send a JSON object.");
  }
  if (tooDeep) {
    throw new SignetError("VALIDATION_ERROR", `The JSON body nests deeper than ${maxDepth} levels; flatten it.`);
  }
  try {
    if (literals.length === 0) return { value: JSON.parse(text) };
    return parseWithLiterals(text, bytes, literals, `\u0000${nonce}:`, decodeDocument);
  } catch (error) {
    const where = error instanceof SyntaxError ? `: ${error.message}` : "";
    throw new SignetError("VALIDATION_ERROR", `The request body is not valid JSON${where}.`);
  }
}

/** parseWithLiterals parses a text whose long literals are markers, putting each literal back (or decoding document.base64). */
function parseWithLiterals(text: string, bytes: Buffer, literals: Array<[number, number]>, marker: string, decodeDocument: boolean): ParsedJsonBody {
  const literal = (value: string) => literals[Number(value.slice(marker.length))]!;
  const deferred: Array<[Record<string, unknown>, string]> = [];
  const value: unknown = JSON.parse(text, function (this: Record<string, unknown>, key, found: unknown) {
    if (typeof found !== "string" || !found.startsWith(marker)) return found;
    if (decodeDocument && key === "base64") {
      deferred.push([this, found]);
      return found;
    }
    return bytes.toString("latin1", ...literal(found));
  });
  let document: ParsedJsonBody["document"];
  for (const [holder, found] of deferred) {
    const root = value as { document?: unknown };
    const decoded = !document && root.document === holder ? decodeCanonicalBase64(bytes.subarray(...literal(found))) : undefined;
    if (decoded) document = { placeholder: found, bytes: decoded };
    else holder.base64 = bytes.toString("latin1", ...literal(found));
  }
  return document ? { value, document } : { value };
}

const DECODE_WINDOW = 65_536; // characters, a multiple of 4: each window decodes on its own

/**
 * decodeCanonicalBase64 decodes ASCII base64 or base64url text (one alphabet, optional exact
 * padding, no whitespace) in 64 KB windows, each a small short-lived string, or gives undefined for
 * anything else (the string path then decides and words the error). Node's decoder skips what is
 * not in either alphabet, so a window that yields all its bytes held only alphabet characters;
 * which alphabets appear is four native byte searches; the last group's unused bits are checked by
 * encoding it again.
 */
export function decodeCanonicalBase64(text: Buffer): Buffer | undefined {
  let end = text.length;
  while (end > 0 && text[end - 1] === 0x3d && text.length - end < 2) end--;
  const padding = text.length - end;
  if (end === 0 || end % 4 === 1 || (padding > 0 && (end + padding) % 4 !== 0)) return undefined;
  const standard = text.indexOf(0x2b) !== -1 || text.indexOf(0x2f) !== -1;
  const urlSafe = text.indexOf(0x2d) !== -1 || text.indexOf(0x5f) !== -1;
  if (standard && urlSafe) return undefined;
  const out = Buffer.allocUnsafe(Math.floor((end * 3) / 4));
  let position = 0;
  for (let from = 0; from < end; from += DECODE_WINDOW) {
    const chunk = text.toString("latin1", from, Math.min(from + DECODE_WINDOW, end));
    const written = out.write(chunk, position, "base64");
    if (written !== Math.floor((chunk.length * 3) / 4)) return undefined;
    position += written;
  }
  const tail = out.length % 3; // bytes of the last, partial group (its text is tail + 1 characters)
  if (tail > 0 && out.toString(urlSafe ? "base64url" : "base64", out.length - tail).replace(/=+$/, "") !== text.toString("latin1", end - tail - 1, end)) {
    return undefined;
  }
  return out;
}

/** isMemberName tells whether the string that closed before `at` is an object member's name (a colon follows). */
function isMemberName(bytes: Buffer, at: number): boolean {
  while (bytes[at] === 0x20 || bytes[at] === 0x09 || bytes[at] === 0x0a || bytes[at] === 0x0d) at++;
  return bytes[at] === 0x3a;
}

/** withMarkers is the body's text with each long literal's content replaced by a marker naming it. */
function withMarkers(bytes: Buffer, literals: Array<[number, number]>, nonce: string): string {
  let text = "";
  let from = 0;
  for (const [index, [start, end]] of literals.entries()) {
    text += `${bytes.toString("utf8", from, start)}\\u0000${nonce}:${index}`;
    from = end;
  }
  return text + bytes.toString("utf8", from);
}

/**
 * isJsonContentType accepts application/json only, with any parameters (docs/api.md: anything else,
 * application/vnd.api+json included, is 415).
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return contentType.split(";")[0]!.trim().toLowerCase() === "application/json";
}
