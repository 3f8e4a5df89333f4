import { isAscii } from "node:buffer";
import { randomBytes } from "node:crypto";
import { SignetError } from "#domain/shared/errors.ts";

/**
 * jsonDepthExceeds tells whether the JSON text nests objects/arrays deeper than maxDepth. It scans
 * the text before parsing so a hostile body costs one pass and no allocations; strings are skipped
 * with indexOf (native), so a body that is mostly one long base64 string costs next to nothing.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Find the closing quote: one not preceded by an odd number of backslashes.
      for (;;) {
        const close = text.indexOf('"', i + 1);
        if (close === -1) return false; // unterminated: JSON.parse reports it
        let backslashes = 0;
        while (text.charCodeAt(close - 1 - backslashes) === 0x5c) backslashes++;
        i = close;
        if (backslashes % 2 === 0) break;
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * parseJsonBody turns a request body into a value, with the errors SPEC 5 asks for. Given the
 * bytes, long plain string members (a document's base64) are lifted out before parsing (see
 * longLiterals): they become strings straight from the bytes, once, instead of a decoded copy of
 * the whole body plus the parser's copy of each.
 */
export function parseJsonBody(body: string | Buffer, maxDepth: number): unknown {
  const literals = typeof body === "string" ? [] : longLiterals(body);
  const nonce = literals.length > 0 ? randomBytes(12).toString("hex") : "";
  const text = typeof body === "string" ? body : literals.length === 0 ? body.toString("utf8") : withMarkers(body, literals, nonce);
  if (text.trim() === "") {
    throw new SignetError("VALIDATION_ERROR", "The request body is empty; send a JSON object.");
  }
  if (jsonDepthExceeds(text, maxDepth)) {
    throw new SignetError("VALIDATION_ERROR", `The JSON body nests deeper than ${maxDepth} levels; flatten it.`);
  }
  try {
    if (literals.length === 0) return JSON.parse(text);
    const marker = `\u0000${nonce}:`;
    return JSON.parse(text, (_key, value: unknown) =>
      typeof value === "string" && value.startsWith(marker) ? (body as Buffer).toString("latin1", ...literals[Number(value.slice(marker.length))]!) : value,
    );
  } catch (error) {
    const where = error instanceof SyntaxError ? `: ${error.message}` : "";
    throw new SignetError("VALIDATION_ERROR", `The request body is not valid JSON${where}.`);
  }
}

const LONG_LITERAL = 64 * 1024;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * longLiterals finds the string values (not member names) of a JSON text (as bytes) that are at
 * least 64 KB of ASCII without escapes, as [start, end) of their content; their text is their
 * bytes. It walks the structure and jumps over every string with indexOf (native), so a body that
 * is mostly one long string costs next to nothing. Anything unexpected (an unterminated string) gives none, and the
 * parser then reports the body as it is.
 */
function longLiterals(bytes: Buffer): Array<[number, number]> {
  if (bytes.length < LONG_LITERAL) return [];
  const found: Array<[number, number]> = [];
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== QUOTE) continue;
    const start = i + 1;
    let close = start - 1;
    for (;;) {
      close = bytes.indexOf(QUOTE, close + 1);
      if (close === -1) return [];
      let backslashes = 0;
      while (bytes[close - 1 - backslashes] === BACKSLASH) backslashes++;
      if (backslashes % 2 === 0) break;
    }
    if (close - start >= LONG_LITERAL && !isMemberName(bytes, close + 1)) {
      const content = bytes.subarray(start, close); // bounded: many long values never rescan the rest
      if (content.indexOf(BACKSLASH) === -1 && isAscii(content)) found.push([start, close]);
    }
    i = close;
  }
  return found;
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
 * isJsonContentType accepts application/json only, with any parameters (SPEC 1: anything else,
 * application/vnd.api+json included, is 415).
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  return contentType.split(";")[0]!.trim().toLowerCase() === "application/json";
}
