// The plain text of a text field whose value is not a text string (ISO 32000-1 12.7.4.3): /V as a
// text stream, or only the rich text /RV (XHTML, a string or a stream). The listing shows it; every
// stream is inflated under a cap per value and per form, so a small stream cannot become gigabytes.
import { constants as zlibConstants, inflateSync } from "node:zlib";
import { PdfArray, PdfName, type PdfObject, PdfStream, PdfString } from "@libpdf/core";
import type { FormField } from "#domain/pdf/acroform.ts";
import { deref, dictAt, type PdfView } from "#domain/pdf/pdf-file.ts";

/** TEXT_STREAM_LIMIT is the most bytes one value's stream may inflate to; a larger one is listed as null. */
export const TEXT_STREAM_LIMIT = 1024 * 1024;
/** FORM_TEXT_LIMIT is the most bytes all text streams of one form may inflate to together. */
export const FORM_TEXT_LIMIT = 16 * 1024 * 1024;
// Parents a value is inherited through, as the field tree walk bounds it.
const MAX_DEPTH = 32;

/** TextBudget counts the bytes the streams of one listing inflated to. */
export class TextBudget {
  #spent = 0;

  /** remaining is how many bytes the next stream may inflate to. */
  remaining(): number {
    return Math.max(0, Math.min(TEXT_STREAM_LIMIT, FORM_TEXT_LIMIT - this.#spent));
  }

  spend(bytes: number): void {
    this.#spent += bytes;
  }
}

/** streamBytes decodes a stream with no filter or one FlateDecode, within the budget; undefined otherwise. */
function streamBytes(view: PdfView, stream: PdfStream, budget: TextBudget): Buffer | undefined {
  let filter = deref(view, stream.get("Filter"));
  if (filter instanceof PdfArray) filter = filter.length === 1 ? deref(view, filter.at(0)) : undefined;
  const raw = Buffer.from(stream.data);
  const limit = budget.remaining();
  if (filter === undefined && !stream.has("Filter")) {
    if (raw.length > limit) return undefined;
    budget.spend(raw.length);
    return raw;
  }
  if (!(filter instanceof PdfName) || filter.value !== "FlateDecode" || stream.has("DecodeParms") || limit === 0) return undefined;
  try {
    const data = inflateSync(raw, { maxOutputLength: limit, finishFlush: zlibConstants.Z_SYNC_FLUSH });
    budget.spend(data.length);
    return data;
  } catch {
    // Over the cap (RangeError) or not a zlib stream: no value to show.
    budget.spend(limit);
    return undefined;
  }
}

/** textOf decodes the bytes of a text string or text stream: UTF-16BE or UTF-8 by their byte order mark, else PDFDocEncoding (or UTF-8, for XML). */
function textOf(bytes: Uint8Array, xml: boolean): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return new TextDecoder("utf-8").decode(bytes.subarray(3));
  if (xml && !(bytes[0] === 0xfe && bytes[1] === 0xff)) {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      // Not UTF-8: a PDFDocEncoding string.
    }
  }
  return new PdfString(bytes).asString();
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** decodeEntity is the character an XML entity or character reference names (itself when unknown or invalid). */
function decodeEntity(entity: string, name: string): string {
  if (name.startsWith("#")) {
    const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
    return Number.isInteger(code) && code >= 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff) ? String.fromCodePoint(code) : entity;
  }
  return ENTITIES[name] ?? entity;
}

// Tags after which a line ends: a paragraph, a division, a list item, a line break.
const LINE_END = /^(?:br\b|\/(?:p|div|li)\b)/i;

/**
 * withoutTags removes comments, processing instructions and tags, a line break where a line ends.
 * One pass with indexOf (no backtracking regex over the markup): linear however the input nests.
 */
function withoutTags(markup: string): string {
  const out: string[] = [];
  let at = 0;
  while (at < markup.length) {
    const open = markup.indexOf("<", at);
    if (open < 0) {
      out.push(markup.slice(at));
      break;
    }
    out.push(markup.slice(at, open));
    const comment = markup.startsWith("<!--", open);
    const close = comment ? markup.indexOf("-->", open + 4) : markup.indexOf(">", open + 1);
    if (close < 0) break; // an unterminated tag or comment: the rest is markup
    if (!comment && LINE_END.test(markup.slice(open + 1, Math.min(close, open + 8)))) out.push("\n");
    at = close + (comment ? 3 : 1);
  }
  return out.join("");
}

/** trimmed removes the character `char` from both ends of a text (a loop: an end-anchored regex backtracks over long runs). */
function trimmed(text: string, char: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === char) start++;
  while (end > start && text[end - 1] === char) end--;
  return text.slice(start, end);
}

/**
 * xhtmlText is the plain text of a rich text string (XHTML body, ISO 32000-1 12.7.3.4): markup
 * whitespace collapsed as a browser does, a line break after each paragraph and at <br/>, tags
 * removed, entities decoded (after, so a decoded "<" or space stays text).
 */
export function xhtmlText(xhtml: string): string {
  const lines = withoutTags(xhtml.replace(/[ \t\r\n]+/g, " "))
    .split("\n")
    .map((line) => trimmed(line, " "));
  return trimmed(lines.join("\n"), "\n").replace(/&(#x[0-9a-f]{1,8}|#[0-9]{1,9}|[a-z]{1,8});/gi, decodeEntity);
}

/** textValue reads a text string or text stream; an XHTML one as its plain text. */
function textValue(view: PdfView, value: PdfObject | undefined, xhtml: boolean, budget: TextBudget): string | null {
  const resolved = deref(view, value);
  let text: string | undefined;
  if (resolved instanceof PdfString) text = xhtml ? textOf(resolved.bytes, true) : resolved.asString();
  if (resolved instanceof PdfStream) {
    const bytes = streamBytes(view, resolved, budget);
    text = bytes ? textOf(bytes, xhtml) : undefined;
  }
  if (text === undefined) return null;
  return xhtml ? xhtmlText(text) : text;
}

/** ownValue is /V as the field has it: its own, else the nearest parent's (it is inheritable). */
function ownValue(view: PdfView, field: FormField): PdfObject | undefined {
  let node = field.dict;
  for (let depth = 0; depth < MAX_DEPTH; depth++) {
    if (node.has("V")) return node.get("V");
    const parent = dictAt(view, node.get("Parent"));
    if (!parent) return undefined;
    node = parent;
  }
  return undefined;
}

/**
 * plainTextValue is a text field's value as text when the form model has none: /V as a text stream,
 * else the plain text of the rich text /RV. Null when neither reads within the budget.
 */
export function plainTextValue(view: PdfView, field: FormField, budget: TextBudget): FormField["value"] {
  if (field.type !== "text" || field.value !== null) return field.value;
  const value = ownValue(view, field);
  if (value !== undefined) return textValue(view, value, false, budget);
  return field.dict.has("RV") ? textValue(view, field.dict.get("RV"), true, budget) : null;
}
