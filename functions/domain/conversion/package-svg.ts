import { gunzipSync } from "node:zlib";
import { checkImagePixels } from "#domain/docx/image-info.ts";
import { sanitiseSvg } from "#domain/docx/svg.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/**
 * SVG pictures inside a DOCX or ODT (word/media/*.svg, Pictures/*.svg): LibreOffice draws them with
 * its own SVG reader, which follows references (an <image> href, a url() in a style, @import) like a
 * browser. Each one goes through the sanitiser annotate's SVG values go through (domain/docx/svg.ts)
 * before LibreOffice sees it, and LibreOffice is given the sanitised text.
 */

/** SVG_HEAD is how much of an entry is read to tell an SVG: its root element comes after the prolog. */
export const SVG_HEAD = 4096;

// The prolog before a root element (XML declaration, processing instructions, comments, a document
// type, white space), then a root element named svg with or without a prefix.
const SVG_ROOT = /^(?:\uFEFF|\xEF\xBB\xBF)?(?:\s|<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)*<(?:[\w.-]+:)?svg[\s/>]/i;
const GZIP = (head: Uint8Array) => head[0] === 0x1f && head[1] === 0x8b;

/**
 * svgPartKind tells an entry LibreOffice would read as an SVG picture, by its name (.svg, .svgz) or
 * by its bytes as LibreOffice's own format detection does (whatever the name): a text whose root
 * element is <svg> ("svg"), or such a text gzip-compressed ("svgz").
 */
export function svgPartKind(name: string, head: Uint8Array): "svg" | "svgz" | undefined {
  if (GZIP(head)) {
    if (/\.svgz$/i.test(name)) return "svgz";
    let inflated: Buffer;
    try {
      // A partial stream inflates as far as it goes; 1 KB in is at most about 1 MB out.
      inflated = gunzipSync(head.subarray(0, 1024), { finishFlush: 2 /* Z_SYNC_FLUSH */, maxOutputLength: 2 * 1024 * 1024 });
    } catch {
      return undefined;
    }
    return SVG_ROOT.test(inflated.subarray(0, SVG_HEAD).toString("latin1")) ? "svgz" : undefined;
  }
  if (/\.svg$/i.test(name)) return "svg";
  return SVG_ROOT.test(Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, SVG_HEAD)).toString("latin1")) ? "svg" : undefined;
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
