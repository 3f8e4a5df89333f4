import { createHash } from "node:crypto";
import { SignetError } from "#domain/errors.ts";
import type { Fetcher } from "#domain/fetcher.ts";
import { oleKind } from "#domain/ole.ts";
import { isZip, readZipDirectory, type ZipEntry, type ZipLimits } from "#domain/zip.ts";
import { formatBytes } from "#domain/sizes.ts";

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
}

/** DocumentLimits bound a resolved document. */
export interface DocumentLimits extends ZipLimits {
  maxDocumentBytes: number;
  /** Pages a PDF may have to be signed or verified (default DEFAULT_MAX_PDF_PAGES). */
  maxPdfPages?: number;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;
const DATA_URI = /^data:([a-z0-9.+-]+\/[a-z0-9.+-]+)?((?:;[a-z0-9-]+=[^;,]*)*);base64,/i;

/**
 * decodeBase64 decodes plain base64, base64url or a base64 data URI, rejecting anything else
 * (Buffer.from would silently skip invalid characters). `what` names the member in messages.
 */
export function decodeBase64(value: string, what: string): { bytes: Buffer; mediaType?: string } {
  let payload = value;
  let mediaType: string | undefined;
  if (value.startsWith("data:")) {
    const match = DATA_URI.exec(value);
    if (!match) {
      throw new SignetError("VALIDATION_ERROR", `${what} is a data URI but not of the form data:<type>;base64,<data>.`, {
        details: [{ field: what, issue: "malformed data URI" }],
      });
    }
    mediaType = match[1]?.toLowerCase();
    payload = value.slice(match[0].length);
  }
  payload = payload.replace(/\s+/g, "");
  const valid = payload.length > 0 && (payload.length % 4 !== 1) && (BASE64.test(payload) || BASE64URL.test(payload));
  if (!valid) {
    throw new SignetError("VALIDATION_ERROR", `${what} is not valid base64.`, {
      details: [{ field: what, issue: "invalid base64" }],
    });
  }
  const bytes = Buffer.from(payload, BASE64.test(payload) ? "base64" : "base64url");
  return mediaType ? { bytes, mediaType } : { bytes };
}

/** InspectedDocument is a document's type plus, for zip packages, the directory read to decide it. */
export interface InspectedDocument {
  type: DocumentType;
  /** The central directory of a zip ("docx" or "zip"), read once with the limits. */
  entries?: ZipEntry[];
}

/**
 * inspectDocument looks at magic bytes to tell what a document is: the exact zip and OLE
 * signatures at offset 0 first (a zip's directory then tells a DOCX from another zip), and only
 * then a "%PDF-" header within the first 1 KB (PDF readers accept leading junk, so the PDF rule is
 * the loosest and runs last: a stored zip entry containing "%PDF-" must not make a DOCX a PDF).
 */
export function inspectDocument(bytes: Uint8Array, limits: ZipLimits): InspectedDocument {
  if (isZip(bytes)) {
    const entries = readZipDirectory(bytes, limits);
    return { type: entries.some((entry) => entry.name === "word/document.xml") ? "docx" : "zip", entries };
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
  input: { base64?: string | undefined; url?: string | undefined },
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
  } else {
    throw new SignetError("VALIDATION_ERROR", "Give exactly one of document.base64 or document.url.");
  }
  if (bytes.length > limits.maxDocumentBytes) throw documentTooLarge(limits);
  if (bytes.length === 0) throw new SignetError("INVALID_DOCUMENT", "The document is empty.");
  const type = detectDocumentType(bytes, limits);
  if (type === "ole") {
    // Only an encryption marker means password-protected; a plain Word 97 file is a format to convert.
    const kind = oleKind(bytes);
    if (kind === "encrypted" && accept.includes("docx")) {
      throw new SignetError("ENCRYPTED_DOCUMENT", "The document is a password-protected Office file. Remove the password and save it as .docx.");
    }
    if (kind === "encrypted") throw new SignetError("INVALID_DOCUMENT", `The document is a password-protected Office file; send ${accept.map((t) => t.toUpperCase()).join(" or ")}.`);
    if (kind === "word") {
      const to = accept.includes("docx") ? "docx" : "pdf";
      throw new SignetError(
        "INVALID_DOCUMENT",
        `The document is a Word 97-2003 .doc file, not ${accept.map((t) => t.toUpperCase()).join(" or ")}; convert it first with POST /v1/convert?from=doc&to=${to} and send the result.`,
      );
    }
  }
  if (type !== "pdf" && type !== "docx") {
    throw new SignetError("INVALID_DOCUMENT", `The document is ${describe[type]}; send ${accept.map((t) => t.toUpperCase()).join(" or ")}.`);
  }
  if (!accept.includes(type)) {
    throw new SignetError("INVALID_DOCUMENT", `The document is a ${type.toUpperCase()}; this endpoint takes ${accept.map((t) => t.toUpperCase()).join(" or ")}.`);
  }
  return {
    bytes,
    type,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    ...(fileName ? { fileName } : {}),
  };
}

function documentTooLarge(limits: DocumentLimits): SignetError {
  return new SignetError(
    "PAYLOAD_TOO_LARGE",
    `The document is larger than the ${formatBytes(limits.maxDocumentBytes)} limit.`,
  );
}
