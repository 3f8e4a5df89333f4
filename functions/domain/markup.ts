import { Parser } from "htmlparser2";
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";

// Tags kept as they are (with the attributes below); everything else is unwrapped (its text stays).
const allowedTags = new Set([
  "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "strong", "b", "em", "i", "u", "s", "del", "strike",
  "ins", "sub", "sup", "code", "pre", "kbd", "samp", "var", "blockquote", "q", "cite", "abbr", "mark", "small",
  "big", "ul", "ol", "li", "dl", "dt", "dd", "table", "thead", "tbody", "tfoot", "tr", "th", "td", "caption",
  "colgroup", "col", "a", "img", "span", "div", "section", "article", "header", "footer", "main", "figure",
  "figcaption", "font", "center", "input",
]);

// Tags dropped together with everything inside them: scripts, styles and anything that embeds or
// fetches another resource.
const droppedTags = new Set([
  "script", "style", "iframe", "frame", "frameset", "object", "embed", "applet", "noscript", "template", "svg",
  "math", "link", "meta", "base", "title", "audio", "video", "source", "track", "canvas", "form",
  "textarea", "select", "button", "picture", "portal", "noembed", "noframes", "xml",
]);

const voidTags = new Set(["br", "hr", "img", "col", "input"]);

// Attributes that carry formatting only; anything naming a URL (src, background, href, srcset,
// data, poster, ...) is handled below or dropped.
const allowedAttributes = new Set([
  "align", "valign", "colspan", "rowspan", "width", "height", "border", "cellpadding", "cellspacing", "start",
  "type", "lang", "dir", "title", "alt", "color", "size", "face", "span", "checked", "disabled", "reversed",
]);

const SAFE_IMAGE = /^data:image\/(png|jpeg|gif);base64,[a-z0-9+/=\s]+$/i;
const SAFE_LINK = /^(https?:|mailto:|#)/i;
// CSS that could load something (url(), @import, image-set, legacy expression()) or hide it (escapes).
const UNSAFE_STYLE = /url\s*\(|@import|image-set|expression\s*\(|\\|src\s*:|behavior\s*:|-moz-binding/i;

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, "&quot;");
}

function keptAttributes(tag: string, attributes: Record<string, string>): string {
  const kept: string[] = [];
  for (const [rawName, value] of Object.entries(attributes)) {
    const name = rawName.toLowerCase();
    let keep = allowedAttributes.has(name);
    if (name === "href") keep = tag === "a" && SAFE_LINK.test(value.trim());
    if (name === "src") keep = tag === "img" && SAFE_IMAGE.test(value.trim());
    if (name === "style") keep = !UNSAFE_STYLE.test(value);
    if (name === "type" && tag === "input") keep = value.toLowerCase() === "checkbox";
    if (keep) kept.push(` ${name}="${escapeAttribute(value)}"`);
  }
  return kept.join("");
}

/**
 * sanitizeHtml rewrites untrusted HTML into a self-contained document LibreOffice can import
 * without fetching anything: no scripts, styles, frames or embeds; images only as PNG/JPEG/GIF
 * data URIs (others become their alt text); links only http(s), mailto and anchors; inline styles
 * only when they name no URL. The result is UTF-8 with a charset declaration.
 */
export function sanitizeHtml(html: string): string {
  const out: string[] = [];
  const open: string[] = [];
  let skipping = 0;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (skipping > 0 || droppedTags.has(name)) {
          if (!voidTags.has(name)) skipping++;
          return;
        }
        if (name === "img" && !SAFE_IMAGE.test((attributes.src ?? "").trim())) {
          if (attributes.alt) out.push(escapeText(`[${attributes.alt}]`));
          return;
        }
        if (name === "input" && (attributes.type ?? "").toLowerCase() !== "checkbox") return;
        if (!allowedTags.has(name)) return;
        out.push(`<${name}${keptAttributes(name, attributes)}>`);
        if (!voidTags.has(name)) open.push(name);
      },
      ontext(text) {
        if (skipping === 0) out.push(escapeText(text));
      },
      onclosetag(name) {
        if (skipping > 0) {
          if (!voidTags.has(name)) skipping--;
          return;
        }
        if (voidTags.has(name) || !allowedTags.has(name)) return;
        const at = open.lastIndexOf(name);
        if (at < 0) return;
        // Close anything left open inside it first, so the output is well nested.
        while (open.length > at) out.push(`</${open.pop()}>`);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing: true },
  );
  parser.write(html);
  parser.end();
  while (open.length > 0) out.push(`</${open.pop()}>`);
  return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body>\n${out.join("")}\n</body></html>\n`;
}

/**
 * markdownToHtml renders Markdown (CommonMark + GitHub tables, task lists, strikethrough) to safe
 * HTML: raw HTML in the source is shown as text and the result goes through sanitizeHtml.
 */
export function markdownToHtml(markdown: string): string {
  const body = micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()] });
  return sanitizeHtml(body);
}
