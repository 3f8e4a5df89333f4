import { DOMParser, type Document, type Element, type Node } from "@xmldom/xmldom";
import { SignetError } from "#domain/shared/errors.ts";

/** NS holds the namespace URIs Signet reads and writes in WordprocessingML. */
export const NS = {
  w: "http://schemas.openxmlformats.org/wordprocessingml/2006/main",
  w14: "http://schemas.microsoft.com/office/word/2010/wordml",
  w15: "http://schemas.microsoft.com/office/word/2012/wordml",
  r: "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
  wp: "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing",
  a: "http://schemas.openxmlformats.org/drawingml/2006/main",
  pic: "http://schemas.openxmlformats.org/drawingml/2006/picture",
  rels: "http://schemas.openxmlformats.org/package/2006/relationships",
  ct: "http://schemas.openxmlformats.org/package/2006/content-types",
} as const;

/** rejectDtd refuses XML carrying a document type or entity declaration (no DTD, no entity expansion). */
export function rejectDtd(xml: string, what: string): void {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw new SignetError(
      "INVALID_DOCUMENT",
      `The DOCX part ${what} declares a DTD or entities, which Signet refuses for safety; save the document again from Word or LibreOffice.`,
    );
  }
}

/** parseXml parses one XML text with xmldom after refusing DTDs; malformed XML is INVALID_DOCUMENT. */
export function parseXml(xml: string, what: string): Document {
  rejectDtd(xml, what);
  const parser = new DOMParser({
    locator: false,
    onError: (level, message) => {
      if (level !== "warning") throw new SignetError("INVALID_DOCUMENT", `The DOCX part ${what} is not well-formed XML (${String(message).split("\n")[0]}).`);
    },
  });
  try {
    return parser.parseFromString(xml, "text/xml");
  } catch (error) {
    if (error instanceof SignetError) throw error;
    const inner = (error as { cause?: unknown }).cause;
    if (inner instanceof SignetError) throw inner;
    throw new SignetError("INVALID_DOCUMENT", `The DOCX part ${what} is not well-formed XML.`, { cause: error });
  }
}

const textEscapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };
const attrEscapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", '"': "&quot;", "\t": "&#9;", "\n": "&#10;", "\r": "&#13;" };

/** escapeText escapes character data. */
function escapeText(value: string): string {
  return value.replace(/[&<>]/g, (c) => textEscapes[c]!);
}

/** escapeAttribute escapes an attribute value for double quotes. */
export function escapeAttribute(value: string): string {
  return value.replace(/[&<"\t\n\r]/g, (c) => attrEscapes[c]!);
}

/**
 * serializeNode writes a node back as XML exactly by its qualified names; unlike XMLSerializer it
 * never adds namespace declarations, so a fragment spliced back into its part stays as it was.
 */
export function serializeNode(node: Node): string {
  const out: string[] = [];
  write(node, out);
  return out.join("");
}

function write(node: Node, out: string[]): void {
  switch (node.nodeType) {
    case 1: {
      const element = node as Element;
      out.push("<", element.nodeName);
      const attributes = element.attributes;
      for (let i = 0; i < attributes.length; i++) {
        const attribute = attributes.item(i)!;
        out.push(" ", attribute.name, '="', escapeAttribute(attribute.value), '"');
      }
      if (!element.firstChild) {
        out.push("/>");
        return;
      }
      out.push(">");
      for (let child: Node | null = element.firstChild; child; child = child.nextSibling) write(child, out);
      out.push("</", element.nodeName, ">");
      return;
    }
    case 3:
      out.push(escapeText(node.nodeValue ?? ""));
      return;
    case 4:
      out.push("<![CDATA[", node.nodeValue ?? "", "]]>");
      return;
    case 7:
      out.push("<?", node.nodeName, " ", node.nodeValue ?? "", "?>");
      return;
    case 8:
      out.push("<!--", node.nodeValue ?? "", "-->");
      return;
    case 9:
      for (let child: Node | null = node.firstChild; child; child = child.nextSibling) write(child, out);
      return;
    default:
      return;
  }
}

/** childElements lists the element children of a node, optionally only those in a namespace with a local name. */
export function childElements(node: Node, ns?: string, local?: string): Element[] {
  const found: Element[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== 1) continue;
    const element = child as Element;
    if (ns !== undefined && (element.namespaceURI !== ns || element.localName !== local)) continue;
    found.push(element);
  }
  return found;
}

/** firstChild returns the first element child with a namespace and local name. */
export function firstChild(node: Node, ns: string, local: string): Element | undefined {
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 1 && (child as Element).namespaceURI === ns && (child as Element).localName === local) return child as Element;
  }
  return undefined;
}

/** descendants lists element descendants by namespace and local name, in document order. */
export function descendants(node: Element | Document, ns: string, local: string): Element[] {
  return Array.from(node.getElementsByTagNameNS(ns, local));
}

/** attr reads an attribute by namespace and local name (null when absent). */
export function attr(element: Element, ns: string, local: string): string | null {
  return element.getAttributeNS(ns, local);
}

/** removeChildren empties a node. */
export function removeChildren(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/**
 * cloneInto deep-copies a node into a document by plain DOM calls (xmldom's own cloneNode and
 * importNode walk every own property of every node and dominate a fill's time).
 */
export function cloneInto<T extends Node>(doc: Document, node: T): T {
  switch (node.nodeType) {
    case 1: {
      const source = node as unknown as Element;
      const copy = doc.createElementNS(source.namespaceURI, source.nodeName);
      const attributes = source.attributes;
      for (let i = 0; i < attributes.length; i++) {
        const attribute = attributes.item(i)!;
        copy.setAttributeNS(attribute.namespaceURI, attribute.name, attribute.value);
      }
      for (let child: Node | null = source.firstChild; child; child = child.nextSibling) copy.appendChild(cloneInto(doc, child));
      return copy as unknown as T;
    }
    case 3:
      return doc.createTextNode(node.nodeValue ?? "") as unknown as T;
    case 4:
      return doc.createCDATASection(node.nodeValue ?? "") as unknown as T;
    case 8:
      return doc.createComment(node.nodeValue ?? "") as unknown as T;
    default:
      return node.cloneNode(true) as T;
  }
}

/** XmlWriter creates elements with the prefixes a part uses. */
export class XmlWriter {
  constructor(
    readonly doc: Document,
    private readonly prefixes: Readonly<Record<string, string>>,
  ) {}

  /** el creates an element in a namespace, with attributes named by local name in the same namespace. */
  el(ns: keyof typeof NS, local: string, attributes: Record<string, string> = {}, children: Node[] = []): Element {
    const prefix = this.prefixes[ns] ?? ns;
    const element = this.doc.createElementNS(NS[ns], prefix ? `${prefix}:${local}` : local);
    for (const [name, value] of Object.entries(attributes)) element.setAttributeNS(NS[ns], prefix ? `${prefix}:${name}` : name, value);
    for (const child of children) element.appendChild(child);
    return element;
  }

  /** text creates a text node. */
  text(value: string): Node {
    return this.doc.createTextNode(value);
  }
}
