import type { ConversionRequest, Converter } from "#domain/conversion/converter.ts";
import { decodeText } from "#domain/conversion/conversion.ts";
import { stripPackage } from "#domain/conversion/external-references.ts";
import { neutraliseRtf } from "#domain/conversion/rtf.ts";
import { docLink } from "#domain/conversion/word-binary.ts";
import { checkImagePixels, isImageHeader, readPixelSize } from "#domain/docx/image-info.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { readZipDirectory, readZipEntryAsync, readZipEntryHead, type ZipLimits } from "#domain/shared/zip.ts";

/** OfficeInputLimits bound what LibreOffice is given: the zip guards and the pixels of any one image. */
export interface OfficeInputLimits extends ZipLimits {
  /** Width x height an image inside a document may declare (LibreOffice allocates for it when it renders). */
  maxImagePixels: number;
  /** Bytes an SVG picture inside a DOCX or ODT may have (it is parsed whole to be sanitised). */
  maxSvgBytes: number;
}

/** PreparedInput is a request LibreOffice may see, and what was taken out of it. */
export interface PreparedInput {
  request: ConversionRequest;
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
async function checkPackageImages(bytes: Uint8Array, limits: OfficeInputLimits, what: string): Promise<void> {
  for (const entry of readZipDirectory(bytes, limits, what)) {
    const name = entry.name.toLowerCase();
    if (name.endsWith("/") || name.endsWith(".xml") || name.endsWith(".rels") || entry.uncompressedSize < 8) continue;
    let head = await readZipEntryHead(bytes, entry, IMAGE_HEAD, what);
    if (!isImageHeader(head)) continue;
    // A TIFF's directory or a JPEG's frame header can lie further in: then the whole entry.
    if (!readPixelSize(head) && entry.uncompressedSize > head.length) head = await readZipEntryAsync(bytes, entry, limits.maxUncompressedBytes, what);
    checkPixels(head, entry.name, limits);
  }
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
 * prepareOfficeInput is what every document goes through before LibreOffice sees it:
 * references outside the document are removed (DOCX, ODT, RTF) or refused (.doc, which cannot be
 * rewritten), and images that declare more pixels than maxImagePixels are refused with
 * IMAGE_TOO_LARGE. HTML and Markdown are made self-contained by the converter's sanitiser; their
 * inline images are checked here. Pure: bytes in, bytes out.
 */
export async function prepareOfficeInput(request: ConversionRequest, limits: OfficeInputLimits): Promise<PreparedInput> {
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
      const kind = request.from === "docx" || request.from === "xlsx" || request.from === "pptx" ? "docx" : "odt";
      const what = kind === "docx" ? request.from.toUpperCase() : "OpenDocument file";
      const stripped = await stripPackage(request.bytes, kind, limits);
      await checkPackageImages(stripped.bytes, limits, what);
      return { request: { ...request, bytes: stripped.bytes }, removed: stripped.removed };
    }
    case "rtf": {
      const scan = await neutraliseRtf(request.bytes);
      for (const [i, head] of scan.pictures.entries()) checkPixels(head, `number ${i + 1} (an RTF picture)`, limits);
      return { request: { ...request, bytes: scan.bytes }, removed: scan.removed };
    }
    case "doc": {
      const link = await docLink(request.bytes);
      if (link) {
        throw new SignetError(
          "INVALID_DOCUMENT",
          `The .doc file has ${link.reason}, which loads content from outside the document; Signet does not follow such links. Break the link in a word processor (or save as .docx) and upload it again.`,
          { details: [{ field: "file", issue: link.issue }] },
        );
      }
      return { request, removed: [] };
    }
    case "xls":
    case "ppt":
    case "csv":
      // Binary workbooks and decks cannot be rewritten here, and CSV holds no reference: LibreOffice
      // refuses their external content without a user's consent (Err:540), and the box it runs in
      // has no network (docs/reliability.md).
      return { request, removed: [] };
    case "md":
    case "html": {
      const text = request.text ?? decodeText(request.bytes, request.from === "md" ? "Markdown" : "HTML");
      checkDataUriImages(text, limits);
      return { request: { ...request, text }, removed: [] };
    }
  }
}

/**
 * withOfficeInputChecks wraps a converter so that every request passes prepareOfficeInput first;
 * `onRemoved` hears what was taken out (for the log). The converter's other members stay as they are.
 */
export function withOfficeInputChecks<T extends Converter>(inner: T, limits: OfficeInputLimits, onRemoved: (removed: string[]) => void = () => undefined): T {
  const convert = async (request: ConversionRequest) => {
    const prepared = await prepareOfficeInput(request, limits);
    if (prepared.removed.length > 0) onRemoved(prepared.removed);
    return inner.convert(prepared.request);
  };
  return Object.assign(Object.create(inner) as T, { convert });
}
