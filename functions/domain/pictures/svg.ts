import { DOMParser, XMLSerializer, type Element, type Node } from "@xmldom/xmldom";
import { decodeBase64 } from "#domain/shared/document.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { checkImagePixels, readImageInfo } from "#domain/pictures/image-info.ts";

/** SVG_NS is the SVG namespace; a root <svg> outside it is no SVG to any renderer. */
const SVG_NS = "http://www.w3.org/2000/svg";
const XLINK_NS = "http://www.w3.org/1999/xlink";
const XML_NS = "http://www.w3.org/XML/1998/namespace";
const XMLNS_NS = "http://www.w3.org/2000/xmlns/";

/**
 * MAX_SVG_NODES bounds the elements of an SVG counted as a renderer expands it: every <use> costs
 * what it points at, so ten levels of ten <use> each (a billion shapes) are refused before anything
 * parses them into a tree. Real drawings, signatures and logos stay far below.
 */
export const MAX_SVG_NODES = 200_000;

/** MAX_SVG_DEPTH bounds nesting (elements in elements, <use> in <use>): deeper is no drawing, and recursion has a stack. */
export const MAX_SVG_DEPTH = 256;

// The static drawing vocabulary of SVG 1.1/2 (shapes, text, paint servers, clipping, masking,
// filters). Not here, and so removed with their content: script, foreignObject (HTML), animation
// (set, animate*: they can rewrite an href), metadata, and every element of another namespace.
const ALLOWED_ELEMENTS = new Set(
  (
    "svg g defs symbol use path rect circle ellipse line polyline polygon text tspan textPath title desc a switch view image style " +
    "linearGradient radialGradient stop pattern clipPath mask marker filter feBlend feColorMatrix feComponentTransfer feComposite " +
    "feConvolveMatrix feDiffuseLighting feDisplacementMap feDistantLight feDropShadow feFlood feFuncA feFuncB feFuncG feFuncR " +
    "feGaussianBlur feImage feMerge feMergeNode feMorphology feOffset fePointLight feSpecularLighting feSpotLight feTile feTurbulence"
  ).split(" "),
);

// A url() that points anywhere but into this document (url(#id) is a local paint server or filter).
const OUTSIDE_URL = /url\s*\(\s*(?!['"]?\s*#)/i;
// CSS that loads or evaluates something beyond url(): @import, @font-face sources, IE expression().
const UNSAFE_CSS = /@import|@font-face|expression\s*\(|\\/i;
// Pictures an <image> may embed: decoded by the renderer, so their declared size is checked too.
const EMBEDDED_IMAGE = /^data:image\/(png|jpeg|jpg|gif);base64,/i;

/** SanitisedSvg is an SVG that references nothing outside itself. */
export interface SanitisedSvg {
  /** The SVG text, as stored in the document and given to the renderer. */
  text: string;
  /** What was taken out (element names and attributes), for the log and the tests. */
  removed: string[];
  /** The size the root's width and height (else its viewBox) declare, in px; unset when they declare none. */
  size?: { width: number; height: number };
}

/**
 * SvgSource is whose SVG it is: how messages name it, the `field` of error details, and the error
 * that refuses it. A string is an annotate value (`fields.N`): INVALID_IMAGE on `fields.N.value`.
 */
export interface SvgSource {
  name: string;
  field: string;
  refuse: (issue: string) => SignetError;
}

const invalid = (field: string, issue: string) =>
  new SignetError("INVALID_IMAGE", `${field} is not an SVG Signet can use (${issue}).`, { details: [{ field: `${field}.value`, issue }] });

const sourceOf = (source: string | SvgSource): SvgSource =>
  typeof source === "string" ? { name: source, field: `${source}.value`, refuse: (issue) => invalid(source, issue) } : source;

/**
 * PLAIN_SVG_DOCTYPE is a `<!DOCTYPE svg ...>` in the prolog (after the XML declaration and comments,
 * where Illustrator puts its generator line) with at most a public or system identifier: no internal subset.
 */
const PLAIN_SVG_DOCTYPE =
  /^((?:\s*<\?xml[^>]*\?>)?(?:\s*<!--(?:(?!-->)[\s\S])*-->)*)\s*<!DOCTYPE\s+svg(?:\s+PUBLIC\s+"[^"[\]<>]*"\s+"[^"[\]<>]*"|\s+SYSTEM\s+"[^"[\]<>]*")?\s*>/i;

/**
 * sanitiseSvg makes an untrusted SVG self-contained and inert. A document type or entity
 * declaration is refused (no entity expansion). Scripts, event handlers, foreign content,
 * animation and anything outside the SVG namespace are removed; so is every reference out of the
 * document: an href that is not "#id" (an <image> may keep a base64 PNG, JPEG or GIF within the
 * pixel limit), a url() that is not "url(#id)", CSS imports and font sources, processing
 * instructions such as xml-stylesheet. A root that is not <svg> in the SVG namespace (a root
 * <svg> without xmlns is read as SVG, as the image/svg+xml parser does, and written with it), malformed
 * XML, a <use> cycle or more than MAX_SVG_NODES elements once <use> is expanded is INVALID_IMAGE.
 */
export function sanitiseSvg(bytes: Uint8Array, from: string | SvgSource, limits: { maxImagePixels: number }): SanitisedSvg {
  const source = sourceOf(from);
  let xml: string;
  try {
    xml = new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    throw source.refuse("the text is not UTF-8");
  }
  // Old editors (Illustrator, Inkscape 0.4x) write the SVG 1.1 DOCTYPE line: a public identifier
  // and nothing else. It is dropped (no DTD is ever read); any internal subset or entity is refused.
  xml = xml.replace(PLAIN_SVG_DOCTYPE, "$1");
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw source.refuse("it declares entities or a document type with an internal subset, which Signet refuses for safety");
  const parser = new DOMParser({
    locator: false,
    onError: (level, message) => {
      if (level !== "warning") throw source.refuse(`not well-formed XML: ${String(message).split("\n")[0]}`);
    },
  });
  let doc: ReturnType<DOMParser["parseFromString"]>;
  try {
    doc = parser.parseFromString(xml, "image/svg+xml");
  } catch (error) {
    if (error instanceof SignetError) throw error;
    const inner = (error as { cause?: unknown }).cause;
    if (inner instanceof SignetError) throw inner;
    throw source.refuse("not well-formed XML");
  }
  const root = doc.documentElement;
  if (root?.localName !== "svg" || root.namespaceURI !== SVG_NS) throw source.refuse(`the root element must be <svg xmlns="${SVG_NS}">`);

  const removed: string[] = [];
  // Only the root element stays at the top: processing instructions (xml-stylesheet), comments and the like go.
  for (const node of childNodes(doc)) {
    if (node === root) continue;
    doc.removeChild(node);
    if (node.nodeType === 7 && node.nodeName !== "xml") removed.push(`processing instruction ${node.nodeName}`);
  }
  clean(root, source, limits, removed, 0);
  countExpanded(root, source);
  const size = declaredSize(root);
  return { text: new XMLSerializer().serializeToString(doc), removed, ...(size ? { size } : {}) };
}

function childNodes(node: Node): Node[] {
  const nodes: Node[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) nodes.push(child);
  return nodes;
}

function clean(element: Element, source: SvgSource, limits: { maxImagePixels: number }, removed: string[], depth: number): void {
  if (depth > MAX_SVG_DEPTH) throw source.refuse(`elements nested more than ${MAX_SVG_DEPTH} deep`);
  for (const attribute of Array.from({ length: element.attributes.length }, (_, i) => element.attributes.item(i)!)) {
    const keep = keepAttribute(element, attribute.namespaceURI, attribute.localName ?? attribute.name, attribute.value, source, limits);
    if (!keep) {
      element.removeAttributeNode(attribute);
      removed.push(`${element.localName} @${attribute.name}`);
    }
  }
  for (const child of childNodes(element)) {
    if (child.nodeType === 1) {
      const inner = child as Element;
      if (inner.namespaceURI !== SVG_NS || !ALLOWED_ELEMENTS.has(inner.localName ?? "")) {
        element.removeChild(child);
        removed.push(inner.nodeName);
        continue;
      }
      if (inner.localName === "style" && (OUTSIDE_URL.test(inner.textContent ?? "") || UNSAFE_CSS.test(inner.textContent ?? ""))) {
        element.removeChild(child);
        removed.push("style (loads from outside)");
        continue;
      }
      clean(inner, source, limits, removed, depth + 1);
    } else if (child.nodeType !== 3 && child.nodeType !== 4) {
      // Text and CDATA stay (text content, style sheets); comments and processing instructions go.
      element.removeChild(child);
    }
  }
}

function keepAttribute(
  element: Element,
  namespace: string | null,
  name: string,
  value: string,
  source: SvgSource,
  limits: { maxImagePixels: number },
): boolean {
  if (namespace === XMLNS_NS || (namespace === null && name === "xmlns")) return true;
  if (namespace !== null && namespace !== XLINK_NS && namespace !== XML_NS) return false;
  if (/^on/i.test(name)) return false;
  if (name === "href" && (namespace === null || namespace === XLINK_NS)) {
    const target = value.trim();
    if (target.startsWith("#")) return true;
    if (element.localName === "image" && EMBEDDED_IMAGE.test(target)) {
      const info = embeddedImageInfo(target);
      if (!info) return false;
      checkImagePixels(info, limits.maxImagePixels, `embedded in ${source.name}`, source.field);
      return true;
    }
    return false;
  }
  if (namespace === XLINK_NS) return false; // xlink:role, xlink:arcrole and the like say nothing to a renderer
  // Presentation attributes are CSS values too (fill="url(...)"), escapes included.
  return !OUTSIDE_URL.test(value) && !UNSAFE_CSS.test(value);
}

function embeddedImageInfo(uri: string): { width: number; height: number } | undefined {
  try {
    return readImageInfo(decodeBase64(uri, "image").bytes);
  } catch {
    return undefined;
  }
}

/** countExpanded counts elements as a renderer instantiates them (a <use> costs its target) and refuses cycles and excess. */
function countExpanded(root: Element, source: SvgSource): void {
  const byId = new Map<string, Element>();
  const index = (element: Element) => {
    const id = element.getAttribute("id");
    if (id && !byId.has(id)) byId.set(id, element);
    for (let child = element.firstChild; child; child = child.nextSibling) if (child.nodeType === 1) index(child as Element);
  };
  index(root);
  const cost = new Map<Element, number>();
  const visiting = new Set<Element>();
  const tooMany = () => source.refuse(`more than ${MAX_SVG_NODES} elements once <use> references are expanded`);
  const count = (element: Element, depth: number): number => {
    const known = cost.get(element);
    if (known !== undefined) return known;
    if (depth > MAX_SVG_DEPTH) throw source.refuse(`elements and <use> references nested more than ${MAX_SVG_DEPTH} deep`);
    if (visiting.has(element)) throw source.refuse("a <use> refers to itself or to an element that contains it");
    visiting.add(element);
    let total = 1;
    for (let child = element.firstChild; child; child = child.nextSibling) if (child.nodeType === 1) total += count(child as Element, depth + 1);
    if (element.localName === "use") {
      const href = (element.getAttribute("href") ?? element.getAttributeNS(XLINK_NS, "href") ?? "").trim();
      const target = href.startsWith("#") ? byId.get(href.slice(1)) : undefined;
      if (target) total += count(target, depth + 1);
    }
    visiting.delete(element);
    if (total > MAX_SVG_NODES) throw tooMany();
    cost.set(element, total);
    return total;
  };
  count(root, 0);
}

// CSS px per unit of an absolute length (CSS Values 3): what a width of "2in" or "50mm" declares.
const PX_PER_UNIT: Record<string, number> = { "": 1, px: 1, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, q: 96 / 101.6, pt: 4 / 3, pc: 16, em: 16, ex: 8 };

function length(value: string | null): number | undefined {
  const match = /^\s*([+]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)\s*([a-z]*)\s*$/i.exec(value ?? "");
  const perUnit = match ? PX_PER_UNIT[match[2]!.toLowerCase()] : undefined;
  return match && perUnit !== undefined ? Number(match[1]) * perUnit : undefined;
}

/**
 * declaredSize is the size an SVG's root declares, as renderers read it: width and height in
 * absolute units (a percentage or none: the viewBox's, scaled to keep its ratio when one side is
 * given). Undefined when neither says anything.
 */
function declaredSize(root: Element): { width: number; height: number } | undefined {
  const box = (root.getAttribute("viewBox") ?? "")
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  const [boxWidth, boxHeight] = box.length === 4 && box.every(Number.isFinite) && box[2]! > 0 && box[3]! > 0 ? [box[2]!, box[3]!] : [undefined, undefined];
  let width = length(root.getAttribute("width"));
  let height = length(root.getAttribute("height"));
  if (boxWidth !== undefined && boxHeight !== undefined) {
    if (width === undefined && height !== undefined) width = (height * boxWidth) / boxHeight;
    else if (height === undefined && width !== undefined) height = (width * boxHeight) / boxWidth;
    width ??= boxWidth;
    height ??= boxHeight;
  }
  return width !== undefined && height !== undefined ? { width, height } : undefined;
}
