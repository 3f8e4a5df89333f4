import { inflateRawSync } from "node:zlib";
import type { ConversionRequest, SourceFormat, TargetFormat } from "#domain/converter.ts";
import type { DocumentLimits } from "#domain/document.ts";
import { detectDocumentType } from "#domain/document.ts";
import { SignetError } from "#domain/errors.ts";
import { oleStreamNames, wordDocumentEncrypted } from "#domain/ole.ts";
import { isZip, readZipDirectory, type ZipEntry } from "#domain/zip.ts";

/** conversionTargets says which outputs each input format may be converted to. */
export const conversionTargets: Record<SourceFormat, readonly TargetFormat[]> = {
  docx: ["pdf"],
  doc: ["pdf", "docx"],
  odt: ["pdf", "docx"],
  rtf: ["pdf", "docx"],
  md: ["docx", "pdf"],
  html: ["docx", "pdf"],
};

/** targetMediaTypes gives the Content-Type and file extension of each output format. */
export const targetMediaTypes: Record<TargetFormat, { contentType: string; extension: string }> = {
  pdf: { contentType: "application/pdf", extension: "pdf" },
  docx: { contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", extension: "docx" },
};

/**
 * conversionOptions checks that from/to/pdfa make sense together (a 400 otherwise) and returns
 * them in the converter's terms.
 */
export function conversionOptions(query: { from: SourceFormat; to: TargetFormat; pdfa?: "2b" | undefined }): Omit<ConversionRequest, "bytes"> {
  const { from, to, pdfa } = query;
  if (!conversionTargets[from].includes(to)) {
    throw new SignetError("VALIDATION_ERROR", `A ${from} file cannot be converted to ${to}; choose to=${conversionTargets[from].join(" or to=")}.`, {
      details: [{ field: "query.to", issue: `from=${from} supports to=${conversionTargets[from].join(", ")}` }],
    });
  }
  if (pdfa !== undefined && to !== "pdf") {
    throw new SignetError("VALIDATION_ERROR", "pdfa applies to PDF output only; drop pdfa or use to=pdf.", {
      details: [{ field: "query.pdfa", issue: "only with to=pdf" }],
    });
  }
  return { from, to, ...(pdfa ? { pdfa: true } : {}) };
}

const ODT_MIMETYPE = "application/vnd.oasis.opendocument.text";

function invalid(message: string): SignetError {
  return new SignetError("INVALID_DOCUMENT", message);
}

function encrypted(what: string): SignetError {
  return new SignetError("ENCRYPTED_DOCUMENT", `The ${what} is password-protected; remove the password and upload it again.`);
}

// Reads one zip entry's bytes, inflating at most `cap` bytes (declared sizes can lie).
function zipEntryBytes(bytes: Uint8Array, entry: ZipEntry, cap: number): Buffer | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const at = entry.localHeaderOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== 0x04034b50) return undefined;
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const data = Buffer.from(bytes.buffer, bytes.byteOffset + start, Math.max(0, Math.min(entry.compressedSize, bytes.length - start)));
  if (entry.method === 0) return data.subarray(0, cap);
  if (entry.method !== 8) return undefined;
  try {
    return inflateRawSync(data, { maxOutputLength: cap });
  } catch {
    return undefined;
  }
}

function checkDocx(bytes: Uint8Array, limits: DocumentLimits): void {
  const type = detectDocumentType(bytes, limits);
  if (type === "ole") throw encrypted("DOCX (an OLE container holding an encrypted package)");
  if (type === "zip") throw invalid("The file is a zip archive without word/document.xml, so it is not a DOCX; check that you uploaded the right file.");
  if (type !== "docx") throw invalid(`The file is ${type === "pdf" ? "a PDF" : "not a DOCX (not a zip package)"}; upload a .docx file or set from= to its real format.`);
  if (readZipDirectory(bytes, limits).some((entry) => entry.encrypted)) throw encrypted("DOCX");
}

function checkDoc(bytes: Uint8Array): void {
  const names = oleStreamNames(bytes);
  if (!names) {
    const hint = isZip(bytes) ? " It looks like a zip package: try from=docx or from=odt." : "";
    throw invalid(`The file is not a Word 97-2003 document (no OLE container).${hint}`);
  }
  if (names.includes("EncryptedPackage") || names.includes("EncryptionInfo")) throw encrypted("document");
  if (!names.includes("WordDocument")) throw invalid("The file is an OLE container without a WordDocument stream, so it is not a .doc file.");
  if (wordDocumentEncrypted(bytes)) throw encrypted("document");
}

function checkOdt(bytes: Uint8Array, limits: DocumentLimits): void {
  if (!isZip(bytes)) throw invalid("The file is not an OpenDocument text (not a zip package); upload a .odt file or set from= to its real format.");
  const entries = readZipDirectory(bytes, limits);
  const mimetype = entries.find((entry) => entry.name === "mimetype");
  const declared = mimetype ? zipEntryBytes(bytes, mimetype, 256)?.toString("latin1").trim() : undefined;
  if (declared !== ODT_MIMETYPE) {
    throw invalid(`The file is not an OpenDocument text (mimetype ${declared ? `"${declared}"` : "missing"}); upload a .odt file.`);
  }
  const manifest = entries.find((entry) => entry.name === "META-INF/manifest.xml");
  const text = manifest ? zipEntryBytes(bytes, manifest, 4 * 1024 * 1024)?.toString("utf8") : undefined;
  if (text?.includes("encryption-data")) throw encrypted("OpenDocument file");
}

function checkRtf(bytes: Uint8Array): void {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 64)).toString("latin1").replace(/^\uFEFF|^\s+/, "");
  if (!head.startsWith("{\\rtf")) throw invalid("The file is not RTF (it does not start with {\\rtf); upload an .rtf file or set from= to its real format.");
}

/** decodeText reads an uploaded text file (Markdown, HTML) as UTF-8, refusing binary content. */
export function decodeText(bytes: Uint8Array, what: string): string {
  const type = detectDocumentType(bytes.subarray(0, 1024 * 1024), { maxEntries: Number.MAX_SAFE_INTEGER, maxUncompressedBytes: Number.MAX_SAFE_INTEGER });
  if (type !== "unknown" || bytes.includes(0)) throw invalid(`The file is not ${what} text; set from= to its real format.`);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalid(`The ${what} file is not UTF-8 text; save it as UTF-8 and upload it again.`);
  }
}

/**
 * checkConversionInput looks at the bytes before LibreOffice does: size, emptiness, and whether the
 * content is what `from` claims (a DOCX is a zip with word/document.xml, a .doc an OLE file with
 * a WordDocument stream, ...). Password-protected files are ENCRYPTED_DOCUMENT.
 */
export function checkConversionInput(bytes: Uint8Array, from: SourceFormat, limits: DocumentLimits): void {
  if (bytes.length === 0) {
    throw new SignetError("VALIDATION_ERROR", "The uploaded file is empty; attach the document in the `file` part.", {
      details: [{ field: "file", issue: "empty" }],
    });
  }
  if (bytes.length > limits.maxDocumentBytes) {
    throw new SignetError("PAYLOAD_TOO_LARGE", `The file is larger than the ${Math.floor(limits.maxDocumentBytes / 1024 / 1024)} MB limit.`);
  }
  const checks: Record<SourceFormat, () => void> = {
    docx: () => checkDocx(bytes, limits),
    doc: () => checkDoc(bytes),
    odt: () => checkOdt(bytes, limits),
    rtf: () => checkRtf(bytes),
    md: () => void decodeText(bytes, "Markdown"),
    html: () => void decodeText(bytes, "HTML"),
  };
  checks[from]();
}
