// The XMP packet of a PDF (ISO 16684-1) kept in step with its Info dictionary: the dc/pdf/xmp
// properties the Info keys map to (ISO 32000-1 14.3.2, the XMP specification part 2) are written
// in one rdf:Description; every other property of an existing packet (PDF/A identification, custom
// schemas) is kept.
import { DOMParser, type Element, XMLSerializer } from "@xmldom/xmldom";

/** DocumentInfo are the Info dictionary's standard entries as text (dates ISO 8601). */
export interface DocumentInfo {
  title?: string | undefined;
  author?: string | undefined;
  subject?: string | undefined;
  keywords?: string | undefined;
  creator?: string | undefined;
  producer?: string | undefined;
  creationDate?: string | undefined;
  modDate?: string | undefined;
}

const NS = {
  x: "adobe:ns:meta/",
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  dc: "http://purl.org/dc/elements/1.1/",
  pdf: "http://ns.adobe.com/pdf/1.3/",
  xmp: "http://ns.adobe.com/xap/1.0/",
} as const;

// The properties Signet writes (namespace, local name): removed from an existing packet first.
const MANAGED: ReadonlyArray<readonly [string, string]> = [
  [NS.dc, "title"],
  [NS.dc, "creator"],
  [NS.dc, "description"],
  [NS.dc, "format"],
  [NS.pdf, "Keywords"],
  [NS.pdf, "Producer"],
  [NS.xmp, "CreatorTool"],
  [NS.xmp, "CreateDate"],
  [NS.xmp, "ModifyDate"],
  [NS.xmp, "MetadataDate"],
];

const xmlText = (value: string) => value.replace(/[&<>"]/g, (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[char]!);

/** xmlProblem says why a text is not a well-formed XML packet Signet accepts (a DTD or entities, a syntax error), or undefined. */
export function xmlProblem(xml: string): string | undefined {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return "it declares a DTD or entities";
  let problem: string | undefined;
  const parser = new DOMParser({
    locator: false,
    onError: (level, message) => {
      if (level !== "warning") problem ??= String(message).split("\n")[0];
    },
  });
  try {
    const document = parser.parseFromString(xml, "text/xml");
    if (!problem && !document.documentElement) problem = "no root element";
  } catch (error) {
    problem ??= (error as Error).message.split("\n")[0];
  }
  return problem;
}

/** description is the rdf:Description of the managed properties for `info`. */
function description(info: DocumentInfo, metadataDate: string): string {
  const parts = ["<dc:format>application/pdf</dc:format>"];
  const alt = (value: string) => `<rdf:Alt><rdf:li xml:lang="x-default">${xmlText(value)}</rdf:li></rdf:Alt>`;
  if (info.title !== undefined) parts.push(`<dc:title>${alt(info.title)}</dc:title>`);
  if (info.author !== undefined) parts.push(`<dc:creator><rdf:Seq><rdf:li>${xmlText(info.author)}</rdf:li></rdf:Seq></dc:creator>`);
  if (info.subject !== undefined) parts.push(`<dc:description>${alt(info.subject)}</dc:description>`);
  if (info.keywords !== undefined) parts.push(`<pdf:Keywords>${xmlText(info.keywords)}</pdf:Keywords>`);
  if (info.producer !== undefined) parts.push(`<pdf:Producer>${xmlText(info.producer)}</pdf:Producer>`);
  if (info.creator !== undefined) parts.push(`<xmp:CreatorTool>${xmlText(info.creator)}</xmp:CreatorTool>`);
  if (info.creationDate !== undefined) parts.push(`<xmp:CreateDate>${xmlText(info.creationDate)}</xmp:CreateDate>`);
  if (info.modDate !== undefined) parts.push(`<xmp:ModifyDate>${xmlText(info.modDate)}</xmp:ModifyDate>`);
  parts.push(`<xmp:MetadataDate>${xmlText(metadataDate)}</xmp:MetadataDate>`);
  return `<rdf:Description rdf:about="" xmlns:dc="${NS.dc}" xmlns:pdf="${NS.pdf}" xmlns:xmp="${NS.xmp}">${parts.join("")}</rdf:Description>`;
}

const PACKET_START = '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>';
const PACKET_END = '<?xpacket end="w"?>';

/**
 * xmpPacket writes the packet for `info`: into the existing packet when it parses (its managed
 * properties, as elements or attributes, replaced; everything else kept), else a new one.
 */
export function xmpPacket(info: DocumentInfo, metadataDate: string, existing?: string): string {
  const fresh = description(info, metadataDate);
  if (existing !== undefined && xmlProblem(existing) === undefined) {
    const document = new DOMParser().parseFromString(existing, "text/xml");
    const rdf = document.getElementsByTagNameNS(NS.rdf, "RDF")[0];
    if (rdf) {
      for (const node of Array.from(document.getElementsByTagNameNS(NS.rdf, "Description"))) stripManaged(node);
      rdf.appendChild(new DOMParser().parseFromString(`<r xmlns:rdf="${NS.rdf}">${fresh}</r>`, "text/xml").documentElement!.firstChild!);
      const root = document.getElementsByTagNameNS(NS.x, "xmpmeta")[0] ?? rdf;
      return `${PACKET_START}\n${new XMLSerializer().serializeToString(root)}\n${PACKET_END}`;
    }
  }
  return `${PACKET_START}\n<x:xmpmeta xmlns:x="${NS.x}"><rdf:RDF xmlns:rdf="${NS.rdf}">${fresh}</rdf:RDF></x:xmpmeta>\n${PACKET_END}`;
}

function stripManaged(node: Element): void {
  for (const [namespace, name] of MANAGED) {
    if (node.hasAttributeNS(namespace, name)) node.removeAttributeNS(namespace, name);
    for (const child of Array.from(node.childNodes)) {
      const element = child as Element;
      if (element.nodeType === 1 && element.namespaceURI === namespace && element.localName === name) node.removeChild(child);
    }
  }
}

/** readXmpInfo reads the managed properties back from a packet (the tests' and callers' view of what XMP says). */
export function readXmpInfo(xml: string): DocumentInfo {
  if (xmlProblem(xml) !== undefined) return {};
  const document = new DOMParser().parseFromString(xml, "text/xml");
  const first = (namespace: string, name: string): string | undefined => {
    const element = document.getElementsByTagNameNS(namespace, name)[0];
    if (element) {
      const item = element.getElementsByTagNameNS(NS.rdf, "li")[0];
      return (item ?? element).textContent ?? undefined;
    }
    for (const node of Array.from(document.getElementsByTagNameNS(NS.rdf, "Description"))) {
      if (node.hasAttributeNS(namespace, name)) return node.getAttributeNS(namespace, name) ?? undefined;
    }
    return undefined;
  };
  return {
    title: first(NS.dc, "title"),
    author: first(NS.dc, "creator"),
    subject: first(NS.dc, "description"),
    keywords: first(NS.pdf, "Keywords"),
    creator: first(NS.xmp, "CreatorTool"),
    producer: first(NS.pdf, "Producer"),
    creationDate: first(NS.xmp, "CreateDate"),
    modDate: first(NS.xmp, "ModifyDate"),
  };
}
