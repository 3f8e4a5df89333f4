import { gunzipSync } from "node:zlib";
import { checkImagePixels } from "#domain/pictures/image-info.ts";
import { sanitiseSvg } from "#domain/pictures/svg.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/**
 * SVG pictures inside a DOCX or ODT (word/media/*.svg, Pictures/*.svg): LibreOffice draws them with
 * its own SVG reader, which follows references (an <image> href, a url() in a style, @import) like a
 * browser. Each one goes through the sanitiser annotate's SVG values go through (domain/pictures/svg.ts)
 * before LibreOffice sees it, and LibreOffice is given the sanitised text.
 */

/** SVG_HEAD is how much of a picture is looked at to tell an SVG (LibreOffice looks at 2,048 bytes, inflated when gzip-compressed). */
export const SVG_HEAD = 4096;

// LibreOffice's detector (vcl GraphicFormatDetector::checkSVG) takes "<svg" anywhere in the first
// bytes, or "<?xml", "version", "DOCTYPE" and "svg" in that order; its SVG reader then draws an
// <svg> nested inside any other XML. Looked for here without regard to case.
const SVG_MARK = /<svg|<\?xml[\s\S]*?version[\s\S]*?doctype[\s\S]*?svg/i;
const GZIP = (head: Uint8Array) => head[0] === 0x1f && head[1] === 0x8b;
// Formats LibreOffice recognises by their signature before it looks for SVG.
const SIGNATURES = [
  [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  [0xff, 0xd8, 0xff],
  [0x47, 0x49, 0x46, 0x38],
];

/**
 * svgIn tells whether picture bytes are what LibreOffice's format detection takes for an SVG,
 * whatever the name or content type they come with: "svg" for text, "svgz" for gzip-compressed
 * text; undefined for anything else (a PNG, JPEG or GIF by its signature comes first).
 */
export function svgIn(head: Uint8Array): "svg" | "svgz" | undefined {
  if (GZIP(head)) {
    let inflated: Buffer;
    try {
      // A partial stream inflates as far as it goes; 4 KB in is at most about 4.2 MB out (deflate's 1:1032).
      inflated = gunzipSync(head.subarray(0, SVG_HEAD), { finishFlush: 2 /* Z_SYNC_FLUSH */, maxOutputLength: 5 * 1024 * 1024 });
    } catch {
      return undefined;
    }
    // Inflated once, as LibreOffice does: what comes out is looked at as it is.
    return svgText(inflated) ? "svgz" : undefined;
  }
  return svgText(head) ? "svg" : undefined;
}

/** svgText tells whether bytes, as they are, start like an SVG to LibreOffice's detector (and not like a PNG, JPEG or GIF). */
function svgText(head: Uint8Array): boolean {
  if (SIGNATURES.some((signature) => signature.every((byte, i) => head[i] === byte))) return false;
  return SVG_MARK.test(latin1Head(head));
}

const latin1Head = (head: Uint8Array) => Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, SVG_HEAD)).toString("latin1");

// OpenDocument's own parts use the svg: prefix for ODF attributes and elements (svg:title, svg:desc).
const ODF_DOCUMENT_PART = /(?:^|\/)(?:content|styles|meta|settings|manifest)\.xml$/i;

/**
 * svgPartKind tells an entry LibreOffice would read as an SVG picture, by its name (.svg, .svgz) or
 * by its bytes (svgIn). An OpenDocument part of the document itself (content.xml, styles.xml, ...)
 * whose only "<svg" are prefixed ODF names ("<svg:title") is no picture.
 */
export function svgPartKind(name: string, head: Uint8Array, odf = false): "svg" | "svgz" | undefined {
  if (GZIP(head) && /\.svgz$/i.test(name)) return "svgz";
  const kind = svgIn(head);
  if (kind === "svg" && odf && ODF_DOCUMENT_PART.test(name)) {
    if (!/<svg(?!:)|<\?xml[\s\S]*?version[\s\S]*?doctype/i.test(latin1Head(head))) return undefined;
  }
  if (kind) return kind;
  return /\.svg$/i.test(name) ? "svg" : undefined;
}

/** refuseSvgz is the 422 for a compressed SVG, which Signet cannot check without inflating it whole. */
export function refuseSvgz(part: string, what: string): SignetError {
  return new SignetError(
    "INVALID_DOCUMENT",
    `The ${what} part ${part} is a compressed SVG (svgz), which Signet does not pass on; insert the picture as a plain SVG or a PNG and upload the document again.`,
    { details: [{ field: "document", issue: `${part}: compressed SVG` }] },
  );
}

/** svgPartTooLarge is the 413 for an SVG part larger than an SVG picture may be (the image limit). */
export function svgPartTooLarge(part: string, what: string, maxBytes: number): SignetError {
  return new SignetError(
    "PAYLOAD_TOO_LARGE",
    `The ${what} part ${part} is an SVG picture larger than the ${formatBytes(maxBytes)} image limit; insert it as a PNG or a smaller SVG and upload the document again.`,
    { details: [{ field: "document", issue: `${part}: SVG larger than ${maxBytes} bytes` }] },
  );
}

/**
 * sanitiseSvgPart is one SVG part as LibreOffice may see it: sanitised as an annotate SVG value is
 * (references out of it removed; entities or an internal DTD subset, malformed XML, a <use> cycle or
 * an expansion beyond the element limit refused with 422 INVALID_DOCUMENT naming the part), its
 * declared size and those of the pictures embedded in it within maxImagePixels (413 IMAGE_TOO_LARGE
 * naming the part). Returns the sanitised text and what was taken out ("<part>: <what>").
 */
export function sanitiseSvgPart(data: Uint8Array, part: string, what: string, limits: { maxImagePixels: number }): { text: string; removed: string[] } {
  const refuse = (issue: string) =>
    new SignetError(
      "INVALID_DOCUMENT",
      `The ${what} part ${part} is an SVG picture Signet does not pass on (${issue}); save the picture again without it, or insert it as a PNG, and upload the document again.`,
      { details: [{ field: "document", issue: `${part}: ${issue}` }] },
    );
  const svg = sanitiseSvg(data, { name: part, field: "document", refuse }, limits);
  if (svg.size) checkImagePixels(svg.size, limits.maxImagePixels, part, "document");
  return { text: svg.text, removed: svg.removed.map((removed) => `${part}: ${removed}`) };
}
