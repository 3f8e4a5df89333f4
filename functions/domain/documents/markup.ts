import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";
import sanitize, { type IOptions } from "sanitize-html";

// Tags kept as they are (with the attributes below); everything else is unwrapped (its text stays).
const allowedTags = [
  "p",
  "br",
  "hr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "strong",
  "b",
  "em",
  "i",
  "u",
  "s",
  "del",
  "strike",
  "ins",
  "sub",
  "sup",
  "code",
  "pre",
  "kbd",
  "samp",
  "var",
  "blockquote",
  "q",
  "cite",
  "abbr",
  "mark",
  "small",
  "big",
  "ul",
  "ol",
  "li",
  "dl",
  "dt",
  "dd",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "th",
  "td",
  "caption",
  "colgroup",
  "col",
  "a",
  "img",
  "span",
  "div",
  "section",
  "article",
  "header",
  "footer",
  "main",
  "figure",
  "figcaption",
  "font",
  "center",
  "input",
];

// Tags dropped together with everything inside them: scripts, styles and anything that embeds or
// fetches another resource.
const droppedTags = [
  "script",
  "style",
  "iframe",
  "frame",
  "frameset",
  "object",
  "embed",
  "applet",
  "noscript",
  "template",
  "svg",
  "math",
  "link",
  "meta",
  "base",
  "title",
  "audio",
  "video",
  "source",
  "track",
  "canvas",
  "form",
  "textarea",
  "select",
  "button",
  "picture",
  "portal",
  "noembed",
  "noframes",
  "xml",
];

// Attributes that carry formatting only; href and src are checked by scheme below, style by content.
const formattingAttributes = [
  "align",
  "valign",
  "colspan",
  "rowspan",
  "width",
  "height",
  "border",
  "cellpadding",
  "cellspacing",
  "start",
  "type",
  "lang",
  "dir",
  "title",
  "alt",
  "color",
  "size",
  "face",
  "span",
  "checked",
  "disabled",
  "reversed",
  "style",
];

const SAFE_IMAGE = /^data:image\/(png|jpeg|gif);base64,[a-z0-9+/=\s]+$/i;
// What the bytes must start with: LibreOffice detects a picture's format from its bytes, not from
// the data URI's type, and takes an SVG under any type for an SVG (which may read local files).
const IMAGE_SIGNATURES = ["89504e470d0a1a0a", "ffd8ff", "47494638"];

/** inlineImage tells whether an img src is a base64 data URI of a PNG, JPEG or GIF, by its type and by its bytes. */
function inlineImage(src: string): boolean {
  const value = src.trim();
  if (!SAFE_IMAGE.test(value)) return false;
  const head = Buffer.from(value.slice(value.indexOf(",") + 1, value.indexOf(",") + 65).replace(/\s+/g, ""), "base64").toString("hex");
  return IMAGE_SIGNATURES.some((signature) => head.startsWith(signature));
}
// CSS that could load something (url(), @import, image-set, legacy expression()) or hide it (escapes).
const UNSAFE_STYLE = /url\s*\(|@import|image-set|expression\s*\(|\\|src\s*:|behavior\s*:|-moz-binding/i;

const options: IOptions = {
  allowedTags,
  nonTextTags: droppedTags,
  disallowedTagsMode: "discard",
  allowedAttributes: { "*": formattingAttributes, a: ["href"], img: ["src"] },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesByTag: { img: ["data"] },
  allowedSchemesAppliedToAttributes: ["href", "src"],
  allowProtocolRelative: false,
  // Styles are kept verbatim unless they could fetch something (then the attribute goes).
  parseStyleAttributes: false,
  transformTags: {
    "*": (tagName, attribs) => {
      const { style, ...rest } = attribs;
      return { tagName, attribs: style === undefined || UNSAFE_STYLE.test(style) ? rest : attribs };
    },
    // An image that is not an inline PNG/JPEG/GIF (by its type and its bytes) becomes its alt text.
    img: (tagName, attribs) =>
      inlineImage(attribs.src ?? "") ? { tagName, attribs } : { tagName: "span", attribs: {}, text: attribs.alt ? `[${attribs.alt}]` : "" },
  },
  exclusiveFilter: (frame) => frame.tag === "input" && (frame.attribs.type ?? "").toLowerCase() !== "checkbox",
};

/**
 * sanitizeHtml rewrites untrusted HTML into a self-contained document LibreOffice can import
 * without fetching anything: no scripts, styles, frames or embeds; images only as PNG/JPEG/GIF
 * data URIs (others become their alt text); links only http(s), mailto and anchors; inline styles
 * only when they name no URL. The result is UTF-8 with a charset declaration.
 */
export function sanitizeHtml(html: string): string {
  const body = sanitize(html, options);
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body>\n${body}\n</body></html>\n`;
}

/**
 * markdownToHtml renders Markdown (CommonMark + GitHub tables, task lists, strikethrough) to safe
 * HTML: raw HTML in the source is shown as text and the result goes through sanitizeHtml.
 */
export function markdownToHtml(markdown: string): string {
  const body = micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
  return sanitizeHtml(body);
}
