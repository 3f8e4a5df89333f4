import { createHash, type Hash } from "node:crypto";
import { SignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { CompoundFile, type CompoundKind } from "#domain/shared/compound-file.ts";
import { isZip, ZipContainer, type ZipLimits } from "#domain/shared/zip-container.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/** DocumentType is what the bytes of a document are, decided by content, never by a claim. */
export type DocumentType = "pdf" | "docx" | "ole" | "zip" | "unknown";

/** ResolvedDocument is an input document ready for a domain operation. */
export interface ResolvedDocument {
  bytes: Buffer;
  type: "pdf" | "docx";
  /** File name when the URL gave one. */
  fileName?: string;
  /** SHA-256 (hex) of the bytes as received. */
  sha256: string;
  /**
   * A SHA-256 fed with exactly `bytes` and not finished: signing continues a copy of it over what
   * it appends, so a large document is hashed once (PadesSignOptions.inputHash).
   */
  sha256State: Hash;
  /** A DOCX's zip directory, read once here to tell it from a PDF: intake() takes it from here. */
  zip?: ZipContainer;
}

/** DocumentLimits bound a resolved document. */
export interface DocumentLimits extends ZipLimits {
  maxDocumentBytes: number;
  /** Pages a PDF may have to be signed or verified (default DEFAULT_MAX_PDF_PAGES). */
  maxPdfPages?: number;
}

const DATA_URI = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)?((?:;[a-z0-9-]+=[^;,]*)*);base64,/i;

// Character classes of base64 text: 1 both alphabets, 2 standard only (+ /), 3 URL-safe only (- _),
// 4 padding (=), 5 whitespace (ignored), 0 anything else.
const BASE64_CLASS = (() => {
  const table = new Uint8Array(128);
  for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") table[c.charCodeAt(0)] = 1;
  table[0x2b] = table[0x2f] = 2;
  table[0x2d] = table[0x5f] = 3;
  table[0x3d] = 4;
  for (const c of " \t\n\v\f\r") table[c.charCodeAt(0)] = 5;
  return table;
})();

/**
 * matchesEncoding tells whether payload is exactly `bytes` encoded (padding optional), comparing
 * 64 KB windows: native encode and compare, no regex, and only small short-lived strings (a whole
 * re-encoded copy would be one more large string per request for the garbage collector).
 */
function matchesEncoding(bytes: Buffer, payload: string, encoding: "base64" | "base64url"): boolean {
  const WINDOW = 49_152; // bytes, a multiple of 3: every window but the last encodes without padding
  let position = 0;
  for (let offset = 0; offset < bytes.length; offset += WINDOW) {
    const end = Math.min(offset + WINDOW, bytes.length);
    const chunk = bytes.toString(encoding, offset, end);
    if (end < bytes.length) {
      if (payload.slice(position, position + chunk.length) !== chunk) return false;
      position += chunk.length;
      continue;
    }
    let core = chunk.length;
    while (core > 0 && chunk.charCodeAt(core - 1) === 0x3d) core--;
    const bare = chunk.slice(0, core);
    const rest = payload.slice(position);
    return rest === bare || rest === bare + "=".repeat((4 - (core % 4)) % 4);
  }
  return payload.length === 0;
}

/**
 * fastDecode decodes well-formed base64 or base64url without whitespace in native code only:
 * decode, then check that the text is exactly those bytes encoded. Anything else (line breaks,
 * non-canonical trailing bits, invalid text) returns undefined for the careful path.
 */
function fastDecode(payload: string): Buffer | undefined {
  const bytes = Buffer.from(payload, "base64"); // Node's decoder reads both alphabets
  if (matchesEncoding(bytes, payload, "base64") || matchesEncoding(bytes, payload, "base64url")) return bytes;
  return undefined;
}

/**
 * isBase64Text checks base64 or base64url text in one pass without regex: one alphabet only,
 * whitespace anywhere, at most two padding characters and only at the end, and a length (without
 * whitespace) that is not 1 mod 4.
 */
function isBase64Text(payload: string): boolean {
  let count = 0;
  let padding = 0;
  let standard = false;
  let urlSafe = false;
  for (let i = 0; i < payload.length; i++) {
    const code = payload.charCodeAt(i);
    const kind = code < 128 ? BASE64_CLASS[code]! : 0;
    if (kind === 5) continue;
    if (kind === 0) return false;
    if (kind === 4) {
      if (++padding > 2) return false;
    } else {
      if (padding > 0) return false; // data after padding
      if (kind === 2) standard = true;
      else if (kind === 3) urlSafe = true;
    }
    count++;
  }
  return count > 0 && count % 4 !== 1 && !(standard && urlSafe);
}

/**
 * decodeBase64 decodes plain base64, base64url or a base64 data URI, rejecting anything else
 * (Buffer.from would silently skip invalid characters). `what` names the member in messages.
 */
export function decodeBase64(value: string, what: string): { bytes: Buffer; mediaType?: string } {
  let payload = value;
  let mediaType: string | undefined;
  if (value.startsWith("data:")) {
    const match = DATA_URI.exec(value.slice(0, 1024)); // the header is short; never scan the payload
    if (!match) {
      throw new SignetError("VALIDATION_ERROR", `${what} is a data URI but not of the form data:<type>;base64,<data>.`, {
        details: [{ field: what, issue: "malformed data URI" }],
      });
    }
    mediaType = match[1]?.toLowerCase();
    payload = value.slice(match[0].length);
  }
  let bytes = payload.length > 0 ? fastDecode(payload) : undefined;
  if (!bytes) {
    if (!isBase64Text(payload)) {
      throw new SignetError("VALIDATION_ERROR", `${what} is not valid base64.`, {
        details: [{ field: what, issue: "invalid base64" }],
      });
    }
    bytes = Buffer.from(payload, "base64"); // skips the whitespace, reads either alphabet
  }
  return mediaType ? { bytes, mediaType } : { bytes };
}

/** InspectedDocument is a document's type plus, for zip packages, the directory read to decide it. */
export interface InspectedDocument {
  type: DocumentType;
  /** The zip package ("docx" or "zip") with its central directory, read once with the limits. */
  zip?: ZipContainer;
}

/**
 * inspectDocument looks at magic bytes to tell what a document is: the exact zip and OLE
 * signatures at offset 0 first (a zip's directory then tells a DOCX from another zip), and only
 * then a "%PDF-" header within the first 1 KB (PDF readers accept leading junk, so the PDF rule is
 * the loosest and runs last: a stored zip entry containing "%PDF-" must not make a DOCX a PDF).
 */
export function inspectDocument(bytes: Uint8Array, limits: ZipLimits): InspectedDocument {
  if (isZip(bytes)) {
    const zip = ZipContainer.open(bytes, limits);
    return { type: zip.has("word/document.xml") ? "docx" : "zip", zip };
  }
  if (bytes.length >= 8 && bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0) return { type: "ole" };
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString("latin1");
  if (head.includes("%PDF-")) return { type: "pdf" };
  return { type: "unknown" };
}

/** detectDocumentType is inspectDocument's type alone. */
export function detectDocumentType(bytes: Uint8Array, limits: ZipLimits): DocumentType {
  return inspectDocument(bytes, limits).type;
}

const describe: Record<Exclude<DocumentType, "pdf" | "docx">, string> = {
  ole: "an OLE compound file (an old binary Office format) that is neither a Word document nor a password-protected Office file",
  zip: "a zip archive without word/document.xml (not a DOCX)",
  unknown: "neither a PDF nor a DOCX",
};

/**
 * resolveDocument turns a validated `document` member into checked bytes: decodes base64 or
 * fetches the URL, enforces the size limit and the accepted types.
 */
export async function resolveDocument(
  input: { base64?: string | undefined; url?: string | undefined; bytes?: Buffer | undefined },
  accept: ReadonlyArray<"pdf" | "docx">,
  deps: { fetcher: Fetcher; limits: DocumentLimits },
): Promise<ResolvedDocument> {
  const { limits } = deps;
  let bytes: Buffer;
  let fileName: string | undefined;
  if (input.base64 !== undefined) {
    // 4 base64 characters carry 3 bytes: refuse oversize input before decoding it.
    if ((input.base64.length / 4) * 3 > limits.maxDocumentBytes * 1.01 + 1024) throw documentTooLarge(limits);
    bytes = decodeBase64(input.base64, "document.base64").bytes;
  } else if (input.url !== undefined) {
    const fetched = await deps.fetcher.fetch(input.url, { maxBytes: limits.maxDocumentBytes, what: "document" });
    bytes = fetched.bytes;
    fileName = fetched.fileName;
  } else if (input.bytes !== undefined) {
    bytes = input.bytes; // an upload, read by the handler
  } else {
    throw new SignetError("VALIDATION_ERROR", "Give exactly one of document.base64, document.url or document.upload.");
  }
  if (bytes.length > limits.maxDocumentBytes) throw documentTooLarge(limits);
  if (bytes.length === 0) throw new SignetError("INVALID_DOCUMENT", "The document is empty.");
  const { type, zip } = inspectDocument(bytes, limits);
  if (type === "ole") {
    // Only an encryption marker means password-protected; a plain Word 97 file is a format to convert.
    const kind = await compoundKind(bytes);
    if (kind === "encrypted" && accept.includes("docx")) {
      throw new SignetError("ENCRYPTED_DOCUMENT", "The document is a password-protected Office file. Remove the password and save it as .docx.");
    }
    if (kind === "encrypted")
      throw new SignetError("INVALID_DOCUMENT", `The document is a password-protected Office file; send ${accept.map((t) => t.toUpperCase()).join(" or ")}.`);
    if (kind === "word") {
      const to = accept.includes("docx") ? "docx" : "pdf";
      throw new SignetError(
        "INVALID_DOCUMENT",
        `The document is a Word 97-2003 .doc file, not ${accept.map((t) => t.toUpperCase()).join(" or ")}; convert it to ${to.toUpperCase()} first and send the result.`,
        { next: "convert-doc" },
      );
    }
  }
  if (type !== "pdf" && type !== "docx") {
    throw new SignetError("INVALID_DOCUMENT", `The document is ${describe[type]}; send ${accept.map((t) => t.toUpperCase()).join(" or ")}.`);
  }
  if (!accept.includes(type)) {
    throw new SignetError(
      "INVALID_DOCUMENT",
      `The document is a ${type.toUpperCase()}; this endpoint takes ${accept.map((t) => t.toUpperCase()).join(" or ")}.`,
    );
  }
  const hash = createHash("sha256").update(bytes);
  const sha256State = hash.copy();
  return {
    bytes,
    type,
    sha256: hash.digest("hex"),
    sha256State,
    ...(fileName ? { fileName } : {}),
    ...(type === "docx" && zip ? { zip } : {}),
  };
}

/** compoundKind is what a compound file holds; one whose structure cannot be followed is "unreadable". */
async function compoundKind(bytes: Uint8Array): Promise<CompoundKind | "unreadable"> {
  try {
    return (await CompoundFile.open(bytes, "document")).kind();
  } catch {
    return "unreadable";
  }
}

function documentTooLarge(limits: DocumentLimits): SignetError {
  return new SignetError("PAYLOAD_TOO_LARGE", `The document is larger than the ${formatBytes(limits.maxDocumentBytes)} limit.`);
}
