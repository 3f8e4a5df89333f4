import { svgPictureIn } from "#domain/documents/checks/binary-pictures.ts";
import { CompoundFile, isCompoundFile } from "#domain/shared/compound-file.ts";
import { decodeText } from "#domain/documents/checks/container-checks.ts";
import { formatRow, isOpenDocument, type SourceFormat, type ZipFormat } from "#domain/documents/formats.ts";
import { stripPackage, type Stripped } from "#domain/documents/checks/external-references.ts";
import { checkWorkbookFormulas } from "#domain/documents/checks/formulas.ts";
import { svgIn } from "#domain/documents/checks/package-svg.ts";
import { neutraliseRtf } from "#domain/documents/checks/rtf.ts";
import { docLink, type DocLink } from "#domain/documents/checks/word-binary.ts";
import { checkImagePixels, isImageHeader, readPixelSize } from "#domain/pictures/image-info.ts";
import { isSignetError, SignetError } from "#domain/shared/errors.ts";
import { readZipEntryAsync, readZipEntryHead, ZipContainer, type ZipLimits } from "#domain/shared/zip-container.ts";

/** OfficeInputLimits bound what LibreOffice is given: the zip guards and the pixels of any one image. */
export interface OfficeInputLimits extends ZipLimits {
  /** Width x height an image inside a document may declare (LibreOffice allocates for it when it renders). */
  maxImagePixels: number;
  /** Bytes an SVG picture inside a DOCX or ODT may have (it is parsed whole to be sanitised). */
  maxSvgBytes: number;
}

/**
 * OfficeInput is a document for prepareOfficeInput: its bytes and format, and what intake already
 * read of it (the decoded text, the zip directory, the opened compound file), so nothing is read twice.
 */
export interface OfficeInput {
  bytes: Uint8Array;
  from: SourceFormat;
  text?: string;
  zip?: ZipContainer;
  cfb?: CompoundFile;
}

/** PreparedInput is an input LibreOffice may see (its bytes and, for packages, their directory), and what was taken out of it. */
export interface PreparedInput<R extends OfficeInput> {
  request: R;
  removed: string[];
}

// Enough of an image to find its size: PNG, GIF, BMP at once, JPEG after its metadata segments.
const IMAGE_HEAD = 256 * 1024;

/** checkPixels refuses an image declaring more pixels than the limit (IMAGE_TOO_LARGE, 413). */
function checkPixels(head: Uint8Array, where: string, limits: OfficeInputLimits): void {
  const size = readPixelSize(head);
  if (size) checkImagePixels(size, limits.maxImagePixels, where, "document");
}

/** checkPackageImages reads the header of every non-XML entry of a zip package and checks the image sizes it declares. */
async function checkPackageImages(zip: ZipContainer, limits: OfficeInputLimits, what: string): Promise<void> {
  const { bytes } = zip;
  for (const entry of zip.entries) {
    const name = entry.name.toLowerCase();
    if (name.endsWith("/") || name.endsWith(".xml") || name.endsWith(".rels") || entry.uncompressedSize < 8) continue;
    let head = await readZipEntryHead(bytes, entry, IMAGE_HEAD, what);
    if (!isImageHeader(head)) continue;
    // A TIFF's directory or a JPEG's frame header can lie further in: then the whole entry.
    if (!readPixelSize(head) && entry.uncompressedSize > head.length) head = await readZipEntryAsync(bytes, entry, limits.maxUncompressedBytes, what);
    checkPixels(head, entry.name, limits);
  }
}

/** refuseSvgPicture is the 422 for a picture whose bytes LibreOffice reads as an SVG in a format Signet cannot rewrite (RTF, .doc, .xls, .ppt). */
function refuseSvgPicture(what: string, where: string): SignetError {
  return new SignetError(
    "INVALID_DOCUMENT",
    `The ${what} has a picture (${where}) whose bytes are an SVG drawing, which Signet does not pass on in this format; insert the picture as a PNG or JPEG (or save the document as .docx) and upload it again.`,
    { details: [{ field: "file", issue: `${where}: SVG picture` }] },
  );
}

/** prepareRtf neutralises an RTF's linking fields and checks its pictures: none may be an SVG, none may declare too many pixels. */
async function prepareRtf(bytes: Uint8Array, what: string, limits: OfficeInputLimits): Promise<{ bytes: Uint8Array; removed: string[] }> {
  const scan = await neutraliseRtf(bytes);
  for (const [i, head] of scan.pictures.entries()) {
    if (svgIn(head)) throw refuseSvgPicture(what, `RTF picture number ${i + 1}`);
    checkPixels(head, `number ${i + 1} (an RTF picture)`, limits);
  }
  return { bytes: scan.bytes, removed: scan.removed };
}

/**
 * checkBinaryDocument reads a Word, Excel or PowerPoint 97-2003 file's streams once (a compound
 * file whose structure cannot be followed is INVALID_DOCUMENT) and refuses what LibreOffice would
 * load from outside it (`links`: Word's linking fields and linked pictures) and any picture whose
 * bytes are an SVG.
 */
async function checkBinaryDocument(bytes: Uint8Array, what: string, links: boolean, cfb?: CompoundFile): Promise<void> {
  const opened = cfb ?? (isCompoundFile(bytes) ? await CompoundFile.open(bytes, what) : undefined);
  const streams = opened ? await opened.streams() : [];
  const link = links ? await docLink(bytes, streams) : undefined;
  if (link) throw refuseDocLink(what, link);
  const where = await svgPictureIn(streams);
  if (where) throw refuseSvgPicture(what, where);
}

/** MAX_NESTING is how deep documents may sit inside documents (an altChunk DOCX holding another): deeper is refused. */
const MAX_NESTING = 2;

type PackageFormat = ZipFormat;

/**
 * preparePackage applies the package rules (formulas of a workbook, references, SVG pictures,
 * image pixels) to a package at nesting `depth`, and through stripPackage's hook to every document
 * inside it (altChunk, embedded objects), within the inflation budget of `limits`.
 */
async function preparePackage(zip: ZipContainer, from: PackageFormat, limits: OfficeInputLimits, depth: number): Promise<Stripped & { zip: ZipContainer }> {
  // OOXML workbooks and decks keep their outside references in relationships (external links,
  // linked pictures), OpenDocument ones in xlink:href (table:table-source, draw:image): the same
  // rules as for DOCX and ODT apply.
  const kind = isOpenDocument(from) ? "odt" : "docx";
  const what = kind === "docx" ? from.toUpperCase() : "OpenDocument file";
  if (formatRow(from).checks.includes("formulas")) await checkWorkbookFormulas(zip, isOpenDocument(from) ? "ods" : "xlsx", limits);
  const embedded = (data: Buffer, part: string, budget: number) =>
    prepareEmbedded(data, part, { ...limits, maxUncompressedBytes: Math.max(0, budget) }, depth + 1);
  const stripped = await stripPackage(zip, kind, limits, embedded);
  // Unchanged, the package keeps its directory; rewritten, it is a new package of Signet's own.
  const out = stripped.bytes === zip.bytes ? zip : ZipContainer.open(stripped.bytes, limits, what);
  await checkPackageImages(out, limits, what);
  return { ...stripped, zip: out };
}

/** prepareEmbedded checks a document inside a package (a zip package, an RTF or a compound file) by the rules of its kind. */
async function prepareEmbedded(data: Buffer, part: string, limits: OfficeInputLimits, depth: number): Promise<Stripped> {
  const what = `embedded document ${part}`;
  if (depth > MAX_NESTING) {
    throw new SignetError(
      "INVALID_DOCUMENT",
      `The ${what} holds documents nested more than ${MAX_NESTING} deep, which Signet does not follow; save the document again without them.`,
      {
        details: [{ field: "document", issue: `${part}: nested more than ${MAX_NESTING} deep` }],
      },
    );
  }
  const inside = (removed: string[]) => removed.map((item) => `${part} > ${item}`);
  if (data[0] === 0x7b) {
    const rtf = await prepareRtf(data, what, limits);
    return { bytes: rtf.bytes, removed: inside(rtf.removed), read: data.length };
  }
  if (isCompoundFile(data)) {
    await checkBinaryDocument(data, what, true);
    return { bytes: data, removed: [], read: data.length };
  }
  const zip = ZipContainer.open(data, limits, what);
  const names = zip.entries.map((entry) => entry.name);
  const from = names.includes("mimetype") ? "odt" : names.some((name) => name.startsWith("xl/")) ? "xlsx" : "docx";
  try {
    const { zip: _, ...stripped } = await preparePackage(zip, from, limits, depth);
    return { ...stripped, removed: inside(stripped.removed) };
  } catch (error) {
    // The inner document's own message, said to be about the embedded document.
    if (!isSignetError(error)) throw error;
    throw new SignetError(error.code, `In the ${what}: ${error.message}`, {
      details: (error.details ?? []).map((detail) => ({ ...detail, issue: `${part} > ${detail.issue}` })),
    });
  }
}

/** refuseDocLink is the 422 for a Word 97-2003 file that links to outside content. */
function refuseDocLink(what: string, link: DocLink): SignetError {
  return new SignetError(
    "INVALID_DOCUMENT",
    `The ${what} has ${link.reason}, which loads content from outside the document; Signet does not follow such links. Break the link in a word processor (or save as .docx) and upload it again.`,
    { details: [{ field: "file", issue: link.issue }] },
  );
}

const DATA_IMAGE = /data:image\/[a-z0-9.+-]+;base64,/gi;

/** checkDataUriImages checks every base64 image data URI in an HTML or Markdown text (the only images the sanitiser keeps). */
function checkDataUriImages(text: string, limits: OfficeInputLimits): void {
  let index = 0;
  for (const match of text.matchAll(DATA_IMAGE)) {
    index++;
    const start = match.index + match[0].length;
    const base64 = /^[A-Za-z0-9+/=\s]*/.exec(text.slice(start, start + Math.ceil((IMAGE_HEAD * 4) / 3) + 4))?.[0] ?? "";
    const clean = base64.replace(/\s+/g, "");
    checkPixels(Buffer.from(clean.slice(0, clean.length - (clean.length % 4)), "base64"), `number ${index} (a data URI)`, limits);
  }
}

/**
 * prepareOfficeInput is intake's second step, the rules for what LibreOffice may see:
 * references outside the document are removed (DOCX, ODT, RTF and the other packages) or refused
 * (.doc, which cannot be rewritten), parts LibreOffice would draw as SVG are sanitised or refused
 * (pictures of RTF and binary files whose bytes are an SVG are refused), documents embedded in a
 * package get the same checks, workbook formulas that read the machine are refused, and images that
 * declare more pixels than maxImagePixels are refused with IMAGE_TOO_LARGE. HTML and Markdown are
 * made self-contained by the converter's sanitiser; their inline images are checked here. It uses
 * what intake already opened (zip directory, compound file) and opens only what it was not given.
 * Pure: bytes in, bytes out.
 */
export async function prepareOfficeInput<R extends OfficeInput>(request: R, limits: OfficeInputLimits): Promise<PreparedInput<R>> {
  switch (request.from) {
    case "docx":
    case "odt":
    case "xlsx":
    case "pptx":
    case "ods":
    case "odp": {
      // OOXML workbooks and decks keep their outside references in relationships (external links,
      // linked pictures), OpenDocument ones in xlink:href (table:table-source, draw:image): the same
      // rules as for DOCX and ODT apply.
      const zip = request.zip ?? ZipContainer.open(request.bytes, limits, packageWhat(request.from));
      const stripped = await preparePackage(zip, request.from, limits, 0);
      return { request: { ...request, bytes: stripped.bytes, zip: stripped.zip }, removed: stripped.removed };
    }
    case "rtf": {
      const rtf = await prepareRtf(request.bytes, "RTF document", limits);
      return { request: { ...request, bytes: rtf.bytes }, removed: rtf.removed };
    }
    case "doc": {
      // An RTF file named .doc (Word writes them) is read as RTF: the RTF rules apply.
      if (Buffer.from(request.bytes.subarray(0, 5)).toString("latin1") === "{\\rtf") {
        const rtf = await prepareRtf(request.bytes, ".doc file", limits);
        return { request: { ...request, bytes: rtf.bytes }, removed: rtf.removed };
      }
      await checkBinaryDocument(request.bytes, ".doc file", formatRow("doc").checks.includes("links"), request.cfb);
      return { request, removed: [] };
    }
    case "xls":
    case "ppt":
      // Binary workbooks and decks cannot be rewritten here: LibreOffice refuses their external
      // content without a user's consent (Err:540), and the box it runs in has no network
      // (docs/reliability.md); a picture whose bytes are an SVG is refused.
      await checkBinaryDocument(request.bytes, `.${request.from} file`, formatRow(request.from).checks.includes("links"), request.cfb);
      return { request, removed: [] };
    case "csv":
      // CSV holds no reference, and it is imported without evaluating formulas (job-files.ts).
      return { request, removed: [] };
    case "md":
    case "html": {
      const text = request.text ?? decodeText(request.bytes, request.from === "md" ? "Markdown" : "HTML");
      checkDataUriImages(text, limits);
      return { request: { ...request, text }, removed: [] };
    }
  }
}

/** packageWhat names a package in a message about its zip structure. */
function packageWhat(from: PackageFormat): string {
  return isOpenDocument(from) ? "OpenDocument file" : from.toUpperCase();
}
