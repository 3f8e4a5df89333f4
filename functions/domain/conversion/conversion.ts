import { sourceFamilies, type ConversionRequest, type SourceFormat, type TargetFormat } from "#domain/conversion/converter.ts";
import type { DocumentLimits } from "#domain/shared/document.ts";
import { detectDocumentType, inspectDocument } from "#domain/shared/document.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { oleKind, oleStreamNames } from "#domain/shared/ole.ts";
import { PDF } from "@libpdf/core";
import { checkZipInflation, isZip, readZipDirectory, readZipEntry } from "#domain/shared/zip.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/** conversionTargets says which outputs each input format may be converted to. */
const conversionTargets: Record<SourceFormat, readonly TargetFormat[]> = {
  docx: ["pdf"],
  doc: ["pdf", "docx"],
  odt: ["pdf", "docx"],
  rtf: ["pdf", "docx"],
  md: ["docx", "pdf"],
  html: ["docx", "pdf"],
  xlsx: ["pdf"],
  xls: ["pdf"],
  ods: ["pdf"],
  csv: ["pdf"],
  pptx: ["pdf"],
  ppt: ["pdf"],
  odp: ["pdf"],
};

/** targetMediaTypes gives the Content-Type and file extension of each output format. */
export const targetMediaTypes: Record<TargetFormat, { contentType: string; extension: string }> = {
  pdf: { contentType: "application/pdf", extension: "pdf" },
  docx: { contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", extension: "docx" },
};

/**
 * conversionOptions checks that from/to/pdfa make sense together (a 400 otherwise) and returns
 * them in the converter's terms; spreadsheets and presentations carry the page limit
 * (`maxPages`, checked on the output with checkConvertedPages).
 */
export function conversionOptions(
  query: { from: SourceFormat; to: TargetFormat; pdfa?: "2b" | undefined },
  limits: { maxConvertPages: number },
): Omit<ConversionRequest, "bytes"> {
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
  return { from, to, ...(pdfa ? { pdfa: true } : {}), ...(sourceFamilies[from] === "writer" ? {} : { maxPages: limits.maxConvertPages }) };
}

/** OpenDocument mimetypes (the package's first entry) and what to call each kind in a message. */
const OPENDOCUMENT = {
  odt: { mimetype: "application/vnd.oasis.opendocument.text", what: "an OpenDocument text" },
  ods: { mimetype: "application/vnd.oasis.opendocument.spreadsheet", what: "an OpenDocument spreadsheet" },
  odp: { mimetype: "application/vnd.oasis.opendocument.presentation", what: "an OpenDocument presentation" },
} as const;

/** OOXML packages other than DOCX: the part that makes a zip one, and what to call it. */
const OOXML = {
  xlsx: { main: "xl/workbook.xml", what: "an Excel workbook (.xlsx)" },
  pptx: { main: "ppt/presentation.xml", what: "a PowerPoint presentation (.pptx)" },
} as const;

/** Binary Office 97-2003 formats: the OLE stream that makes a file one, and what to call it. */
const BINARY_OFFICE = {
  xls: { streams: ["Workbook", "Book"], what: "an Excel 97-2003 workbook (.xls)" },
  ppt: { streams: ["PowerPoint Document"], what: "a PowerPoint 97-2003 presentation (.ppt)" },
} as const;

function invalid(message: string): SignetError {
  return new SignetError("INVALID_DOCUMENT", message);
}

function encrypted(what: string): SignetError {
  return new SignetError("ENCRYPTED_DOCUMENT", `The ${what} is password-protected; remove the password and upload it again.`);
}

async function checkDocx(bytes: Uint8Array, limits: DocumentLimits): Promise<void> {
  const { type, entries } = inspectDocument(bytes, limits);
  if (type === "ole") {
    const kind = oleKind(bytes);
    if (kind === "encrypted") throw encrypted("DOCX (an OLE container holding an encrypted package)");
    if (kind === "word") throw invalid("The file is a Word 97-2003 .doc file, not a DOCX; convert it with from=doc.");
    throw invalid("The file is an OLE compound file (an old binary Office format), not a DOCX; upload a .docx file or set from= to its real format.");
  }
  if (type === "zip") throw invalid("The file is a zip archive without word/document.xml, so it is not a DOCX; check that you uploaded the right file.");
  if (type !== "docx" || !entries)
    throw invalid(`The file is ${type === "pdf" ? "a PDF" : "not a DOCX (not a zip package)"}; upload a .docx file or set from= to its real format.`);
  if (entries.some((entry) => entry.encrypted)) throw encrypted("DOCX");
  // LibreOffice inflates without a cap: check what the entries really unpack to first.
  await checkZipInflation(bytes, entries, limits, "DOCX");
}

function checkDoc(bytes: Uint8Array): void {
  const kind = oleKind(bytes);
  if (kind === "unreadable") {
    const hint = isZip(bytes) ? " It looks like a zip package: try from=docx or from=odt." : "";
    throw invalid(`The file is not a Word 97-2003 document (no OLE container).${hint}`);
  }
  if (kind === "encrypted") throw encrypted("document");
  if (kind === "other") throw invalid("The file is an OLE container without a WordDocument stream, so it is not a .doc file.");
}

/** checkOpenDocument checks an OpenDocument package of the given kind by its mimetype entry, not its name. */
async function checkOpenDocument(bytes: Uint8Array, limits: DocumentLimits, kind: keyof typeof OPENDOCUMENT): Promise<void> {
  const { mimetype: wanted, what: name } = OPENDOCUMENT[kind];
  if (!isZip(bytes)) throw invalid(`The file is not ${name} (not a zip package); upload a .${kind} file or set from= to its real format.`);
  const entries = readZipDirectory(bytes, limits);
  const what = "OpenDocument file";
  const mimetype = entries.find((entry) => entry.name === "mimetype");
  const declared = mimetype && mimetype.uncompressedSize <= 256 ? readZipEntry(bytes, mimetype, 256, what).toString("latin1").trim() : undefined;
  if (declared !== wanted) {
    throw invalid(`The file is not ${name} (mimetype ${declared ? `"${declared}"` : "missing"}); upload a .${kind} file or set from= to its real format.`);
  }
  const manifest = entries.find((entry) => entry.name === "META-INF/manifest.xml");
  const text = manifest ? readZipEntry(bytes, manifest, 4 * 1024 * 1024, what).toString("utf8") : undefined;
  if (text?.includes("encryption-data")) throw encrypted(what);
  await checkZipInflation(bytes, entries, limits, what);
}

/** checkOoxml checks an XLSX or PPTX: a zip package holding its main part (an encrypted one is an OLE file). */
async function checkOoxml(bytes: Uint8Array, limits: DocumentLimits, kind: keyof typeof OOXML): Promise<void> {
  const { main, what } = OOXML[kind];
  if (!isZip(bytes)) {
    if (oleKind(bytes) === "encrypted") throw encrypted(`${what.replace(/^an? /, "")}`);
    throw invalid(`The file is not ${what} (not a zip package); upload a .${kind} file or set from= to its real format.`);
  }
  const entries = readZipDirectory(bytes, limits);
  if (!entries.some((entry) => entry.name === main))
    throw invalid(`The file is a zip package without ${main}, so it is not ${what}; set from= to its real format.`);
  if (entries.some((entry) => entry.encrypted)) throw encrypted(what.replace(/^an? /, ""));
  await checkZipInflation(bytes, entries, limits, kind.toUpperCase());
}

/** checkBinaryOffice checks an .xls or .ppt: an OLE compound file with the format's stream. */
function checkBinaryOffice(bytes: Uint8Array, kind: keyof typeof BINARY_OFFICE): void {
  const { streams, what } = BINARY_OFFICE[kind];
  const names = oleStreamNames(bytes);
  if (!names) throw invalid(`The file is not ${what} (no OLE container).${isZip(bytes) ? ` It looks like a zip package: try from=${kind}x.` : ""}`);
  if (oleKind(bytes) === "encrypted") throw encrypted("document");
  if (!streams.some((stream) => names.includes(stream))) throw invalid(`The file is an OLE container without a ${streams[0]} stream, so it is not ${what}.`);
}

function checkRtf(bytes: Uint8Array): void {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 64))
    .toString("latin1")
    .replace(/^\uFEFF|^\s+/, "");
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

/** CheckedInput is what checkConversionInput learned that the converter can reuse. */
export interface CheckedInput {
  /** The upload decoded as UTF-8, for md and html (decoded once, here). */
  text?: string;
}

/**
 * checkConversionInput looks at the bytes before LibreOffice does: size, emptiness, and whether the
 * content is what `from` claims (a DOCX is a zip with word/document.xml, a .doc an OLE file with
 * a WordDocument stream, ...). Password-protected files are ENCRYPTED_DOCUMENT. Zip packages (DOCX,
 * ODT) are inflated entry by entry with a cap first (their declared sizes can lie), so LibreOffice
 * never unpacks more than maxUncompressedBytes.
 */
export async function checkConversionInput(bytes: Uint8Array, from: SourceFormat, limits: DocumentLimits): Promise<CheckedInput> {
  if (bytes.length === 0) {
    throw new SignetError("VALIDATION_ERROR", "The uploaded file is empty (0 bytes); attach the document itself.", {
      details: [{ field: "file", issue: "empty" }],
    });
  }
  if (bytes.length > limits.maxDocumentBytes) {
    throw new SignetError("PAYLOAD_TOO_LARGE", `The file is larger than the ${formatBytes(limits.maxDocumentBytes)} limit.`);
  }
  switch (from) {
    case "docx":
      await checkDocx(bytes, limits);
      return {};
    case "doc":
      checkDoc(bytes);
      return {};
    case "odt":
    case "ods":
    case "odp":
      await checkOpenDocument(bytes, limits, from);
      return {};
    case "xlsx":
    case "pptx":
      await checkOoxml(bytes, limits, from);
      return {};
    case "xls":
    case "ppt":
      checkBinaryOffice(bytes, from);
      return {};
    case "csv":
      return { text: decodeText(bytes, "CSV") };
    case "rtf":
      checkRtf(bytes);
      return {};
    case "md":
      return { text: decodeText(bytes, "Markdown") };
    case "html":
      return { text: decodeText(bytes, "HTML") };
  }
}

/**
 * checkConvertedPages refuses a converted spreadsheet or presentation with more pages than
 * `maxPages` (PAYLOAD_TOO_LARGE naming the limit). The converter exported at most one page more
 * than the limit (ConversionRequest.maxPages), so this reads a bounded PDF of LibreOffice's own.
 */
export async function checkConvertedPages(pdf: Uint8Array, maxPages: number): Promise<void> {
  const pages = (await PDF.load(pdf)).getPageCount();
  if (pages > maxPages) {
    throw new SignetError("PAYLOAD_TOO_LARGE", `The document prints to more than ${maxPages} pages, the conversion limit; set print areas or split it.`, {
      details: [{ field: "file", issue: `more than ${maxPages} pages` }],
    });
  }
}
