import { CompoundFile, type CompoundKind, isCompoundFile } from "#domain/shared/compound-file.ts";
import { FORMATS, type FormatIn, formatRow, isOpenDocument, type SourceFormat } from "#domain/documents/formats.ts";
import { checkZipInflation, isZip, readZipEntry, ZipContainer, type ZipLimits } from "#domain/shared/zip-container.ts";
import { isSignetError, SignetError } from "#domain/shared/errors.ts";

/**
 * Container is what intake found the bytes to be, opened once: a zip package with its directory,
 * a compound file with its directory, or text (RTF, Markdown, HTML, CSV; `text` when decoded).
 */
export type Container = { kind: "zip"; zip: ZipContainer } | { kind: "cfb"; cfb: CompoundFile } | { kind: "text"; text?: string };

function invalid(message: string): SignetError {
  return new SignetError("INVALID_DOCUMENT", message);
}

function encrypted(what: string): SignetError {
  return new SignetError("ENCRYPTED_DOCUMENT", `The ${what} is password-protected; remove the password and upload it again.`);
}

/** looksLikePdf tells whether a "%PDF-" header lies within the first 1 KB (PDF readers accept leading junk). */
function looksLikePdf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).toString("latin1").includes("%PDF-");
}

/** compoundKind opens a compound file to tell what it holds; one whose structure cannot be followed is "unreadable". */
async function compoundKind(bytes: Uint8Array, what: string): Promise<CompoundKind | "unreadable"> {
  try {
    return (await CompoundFile.open(bytes, what)).kind();
  } catch (error) {
    if (isSignetError(error)) return "unreadable";
    throw error;
  }
}

/** decodeText reads an uploaded text file (Markdown, HTML, CSV) as UTF-8, refusing binary content. */
export function decodeText(bytes: Uint8Array, what: string): string {
  if (
    isZip(bytes) ||
    (bytes.length >= 8 && bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0) ||
    looksLikePdf(bytes) ||
    bytes.includes(0)
  ) {
    throw invalid(`The file is not ${what} text; set from= to its real format.`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalid(`The ${what} file is not UTF-8 text; save it as UTF-8 and upload it again.`);
  }
}

/** openDocx checks that the bytes are a DOCX: a zip with word/document.xml, no encrypted entries. */
async function openDocx(source: Uint8Array | ZipContainer, limits: ZipLimits): Promise<ZipContainer> {
  const bytes = source instanceof ZipContainer ? source.bytes : source;
  if (!(source instanceof ZipContainer) && !isZip(bytes)) {
    if (bytes.length >= 8 && bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0) {
      const kind = await compoundKind(bytes, "document");
      if (kind === "encrypted") throw encrypted("DOCX (an OLE container holding an encrypted package)");
      if (kind === "word") throw invalid("The file is a Word 97-2003 .doc file, not a DOCX; convert it with from=doc.");
      throw invalid("The file is an OLE compound file (an old binary Office format), not a DOCX; upload a .docx file or set from= to its real format.");
    }
    throw invalid(`The file is ${looksLikePdf(bytes) ? "a PDF" : "not a DOCX (not a zip package)"}; upload a .docx file or set from= to its real format.`);
  }
  const zip = source instanceof ZipContainer ? source : ZipContainer.open(bytes, limits);
  if (!zip.has(FORMATS.docx.sniff.mainPart))
    throw invalid("The file is a zip archive without word/document.xml, so it is not a DOCX; check that you uploaded the right file.");
  if (zip.entries.some((entry) => entry.encrypted)) throw encrypted("DOCX");
  return zip;
}

type OpenDocumentFormat = "odt" | "ods" | "odp";

/** openOpenDocument checks an OpenDocument package of the given kind by its mimetype entry, not its name. */
function openOpenDocument(source: Uint8Array | ZipContainer, limits: ZipLimits, kind: OpenDocumentFormat): ZipContainer {
  const { sniff, what: name } = FORMATS[kind];
  if (!(source instanceof ZipContainer) && !isZip(source))
    throw invalid(`The file is not ${name} (not a zip package); upload a .${kind} file or set from= to its real format.`);
  const zip = source instanceof ZipContainer ? source : ZipContainer.open(source, limits);
  const what = "OpenDocument file";
  const mimetype = zip.entry("mimetype");
  const declared = mimetype && mimetype.uncompressedSize <= 256 ? readZipEntry(zip.bytes, mimetype, 256, what).toString("latin1").trim() : undefined;
  if (declared !== sniff.mimetype) {
    throw invalid(`The file is not ${name} (mimetype ${declared ? `"${declared}"` : "missing"}); upload a .${kind} file or set from= to its real format.`);
  }
  const manifest = zip.entry("META-INF/manifest.xml");
  const text = manifest ? readZipEntry(zip.bytes, manifest, 4 * 1024 * 1024, what).toString("utf8") : undefined;
  if (text?.includes("encryption-data")) throw encrypted(what);
  return zip;
}

/** openOoxml checks an XLSX or PPTX: a zip package holding its main part (an encrypted one is an OLE file). */
async function openOoxml(source: Uint8Array | ZipContainer, limits: ZipLimits, kind: "xlsx" | "pptx"): Promise<ZipContainer> {
  const { sniff, what } = FORMATS[kind];
  if (!(source instanceof ZipContainer) && !isZip(source)) {
    if (isCompoundFile(source) && (await compoundKind(source, "document")) === "encrypted") throw encrypted(`${what.replace(/^an? /, "")}`);
    throw invalid(`The file is not ${what} (not a zip package); upload a .${kind} file or set from= to its real format.`);
  }
  const zip = source instanceof ZipContainer ? source : ZipContainer.open(source, limits);
  if (!zip.has(sniff.mainPart)) throw invalid(`The file is a zip package without ${sniff.mainPart}, so it is not ${what}; set from= to its real format.`);
  if (zip.entries.some((entry) => entry.encrypted)) throw encrypted(what.replace(/^an? /, ""));
  return zip;
}

/** openBinaryOffice checks a .doc, .xls or .ppt: a compound file with the format's stream, not encrypted. */
async function openBinaryOffice(bytes: Uint8Array, kind: FormatIn<"cfb">): Promise<CompoundFile> {
  const { sniff, what } = FORMATS[kind];
  const zipHint = isZip(bytes)
    ? kind === "doc"
      ? " It looks like a zip package: try from=docx or from=odt."
      : ` It looks like a zip package: try from=${kind}x.`
    : "";
  if (!isCompoundFile(bytes)) {
    if (kind === "doc") throw invalid(`The file is not a Word 97-2003 document (no OLE container).${zipHint}`);
    throw invalid(`The file is not ${what} (no OLE container).${zipHint}`);
  }
  const cfb = await CompoundFile.open(bytes, `.${kind} file`);
  if (cfb.kind() === "encrypted") throw encrypted("document");
  if (!sniff.streams.some((stream) => cfb.names.includes(stream))) {
    if (kind === "doc") throw invalid("The file is an OLE container without a WordDocument stream, so it is not a .doc file.");
    throw invalid(`The file is an OLE container without a ${sniff.streams[0]} stream, so it is not ${what}.`);
  }
  return cfb;
}

function checkRtf(bytes: Uint8Array): void {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 64))
    .toString("latin1")
    .replace(/^\uFEFF|^\s+/, "");
  if (!head.startsWith(FORMATS.rtf.sniff.prefix))
    throw invalid("The file is not RTF (it does not start with {\\rtf); upload an .rtf file or set from= to its real format.");
}

/**
 * openContainer looks at the bytes before LibreOffice does and decides whether the content is what
 * `from` claims, by the format's row: a DOCX is a zip with word/document.xml, an OpenDocument file
 * a zip whose mimetype entry says so, a .doc a compound file with a WordDocument stream, RTF starts
 * with {\rtf, Markdown, HTML and CSV are UTF-8 text. Password-protected files are
 * ENCRYPTED_DOCUMENT. Zip packages are inflated entry by entry with a cap (their declared sizes can
 * lie), so LibreOffice never unpacks more than maxUncompressedBytes. The zip directory or compound
 * file is opened once here and returned; a zip already opened (`source`) is not read again.
 */
export async function openContainer(source: Uint8Array | ZipContainer, from: SourceFormat, limits: ZipLimits): Promise<Container> {
  const bytes = source instanceof ZipContainer ? source.bytes : source;
  const row = formatRow(from);
  switch (from) {
    case "docx":
    case "odt":
    case "ods":
    case "odp":
    case "xlsx":
    case "pptx": {
      const zip =
        from === "docx"
          ? await openDocx(source, limits)
          : from === "xlsx" || from === "pptx"
            ? await openOoxml(source, limits, from)
            : openOpenDocument(source, limits, from);
      // LibreOffice inflates without a cap: check what the entries really unpack to first.
      if (row.checks.includes("inflation"))
        await checkZipInflation(zip.bytes, zip.entries, limits, isOpenDocument(from) ? "OpenDocument file" : from.toUpperCase());
      return { kind: "zip", zip };
    }
    case "doc":
    case "xls":
    case "ppt":
      return { kind: "cfb", cfb: await openBinaryOffice(bytes, from) };
    case "rtf":
      checkRtf(bytes);
      return { kind: "text" };
    case "md":
    case "html":
    case "csv":
      return { kind: "text", text: decodeText(bytes, FORMATS[from].sniff.utf8) };
  }
}
