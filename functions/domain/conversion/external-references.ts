import type { Document, Element, Node } from "@xmldom/xmldom";
import { isSafeField } from "#domain/conversion/fields.ts";
import { parseXml, rejectDtd, serializeNode } from "#domain/docx/xml.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { readZipDirectory, readZipEntryAsync, writeZip, type ZipEntry, type ZipLimits } from "#domain/shared/zip.ts";

/**
 * External references: everything in a DOCX or ODT that makes a reader load something from
 * outside the package (a URL, a path on the converting machine, a share) is removed before
 * LibreOffice sees the document (issue 25). A linked picture becomes an empty frame or its
 * placeholder, a linked section or field keeps its last result; ordinary hyperlinks (http, https,
 * mailto) stay clickable, since nothing fetches them. The network namespace and the office
 * worker without egress stay the boundary; this is the part that makes the output predictable.
 */

/** Stripped is a package with its external references removed, and what was removed (for the log and tests). */
export interface Stripped {
  bytes: Uint8Array;
  /** One entry per removed reference: "<part>: <what>". */
  removed: string[];
}

const RELATIONSHIP_TYPES_KEPT = /\/hyperlink$/;
const PLAIN_LINK = /^(https?|mailto):/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * insidePackage tells whether an ODF reference stays inside the package: relative, no scheme (so
 * no drive letter either), no leading slash, no backslash, no ".." (which leaves the package for
 * the folder the document sits in), also once percent-decoded.
 */
function insidePackage(target: string): boolean {
  let value = target.trim();
  try {
    value = decodeURIComponent(value);
  } catch {
    return false;
  }
  if (value === "" || value.startsWith("#")) return true;
  if (SCHEME.test(value) || value.startsWith("/") || value.includes("\\")) return false;
  return !value.split("/").some((segment) => segment === "..");
}

/** outsideWordPackage tells whether a relationship target leaves an OPC package: a URI with a scheme, a network path, a backslash. */
function outsideWordPackage(target: string): boolean {
  const value = target.trim();
  return SCHEME.test(value) || value.startsWith("//") || value.includes("\\");
}

const decoder = new TextDecoder("utf-8", { fatal: true });

/** xmlText decodes an XML part as UTF-8; anything else (UTF-16, another declared encoding) is refused, as no word processor writes it. */
function xmlText(data: Uint8Array, part: string, what: string): string {
  const invalid = () => new SignetError("INVALID_DOCUMENT", `The ${what} part ${part} is not UTF-8 XML; save the document again from a word processor.`);
  let text: string;
  try {
    text = decoder.decode(data);
  } catch {
    throw invalid();
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const declared = /^<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(text)?.[1];
  if (declared && !/^utf-?8$/i.test(declared)) throw invalid();
  rejectDtd(text, part);
  return text;
}

function allElements(doc: Document): Element[] {
  return Array.from(doc.getElementsByTagName("*"));
}

function unwrap(element: Element): void {
  const parent = element.parentNode!;
  while (element.firstChild) parent.insertBefore(element.firstChild, element);
  parent.removeChild(element);
}

/** stripRelationships removes every relationship to a target outside the package, except plain hyperlinks. */
function stripRelationships(doc: Document, part: string, removed: string[]): void {
  for (const relationship of allElements(doc).filter((element) => element.localName === "Relationship")) {
    const target = relationship.getAttribute("Target") ?? "";
    const external = relationship.getAttribute("TargetMode")?.toLowerCase() === "external" || outsideWordPackage(target);
    if (!external) continue;
    if (RELATIONSHIP_TYPES_KEPT.test(relationship.getAttribute("Type") ?? "") && PLAIN_LINK.test(target.trim())) continue;
    removed.push(`${part}: relationship ${relationship.getAttribute("Id")} (${(relationship.getAttribute("Type") ?? "").split("/").pop()})`);
    relationship.parentNode!.removeChild(relationship);
  }
}

const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const LINK_ATTRIBUTES = new Set(["href", "src", "althref"]);

/**
 * stripWordXml neutralises, in one WordprocessingML part: fields that load content (fldSimple is
 * replaced by its result, a complex field's instruction is emptied), URL and path attributes
 * (VML src, o:href, o:althref) and the mail-merge data source.
 */
function stripWordXml(doc: Document, part: string, removed: string[]): void {
  const fields: Array<{ texts: Element[]; decided: boolean }> = [];
  const unwrapped: Element[] = [];
  for (const element of allElements(doc)) {
    for (const attribute of Array.from(element.attributes)) {
      if (attribute.prefix === "xmlns" || attribute.name === "xmlns" || !LINK_ATTRIBUTES.has(attribute.localName ?? "")) continue;
      removed.push(`${part}: ${element.nodeName} ${attribute.name}`);
      element.removeAttributeNode(attribute);
    }
    if (element.namespaceURI !== W) continue;
    switch (element.localName) {
      case "fldSimple":
        if (!isSafeField(element.getAttributeNS(W, "instr") ?? "")) unwrapped.push(element);
        break;
      case "mailMerge":
        unwrapped.push(element);
        break;
      case "fldChar": {
        const type = element.getAttributeNS(W, "fldCharType");
        if (type === "begin") fields.push({ texts: [], decided: false });
        else if (type === "separate" || type === "end") {
          const field = fields.at(-1);
          if (field && !field.decided) decideField(field, part, removed);
          if (type === "end") fields.pop();
        }
        break;
      }
      case "instrText":
        fields.at(-1)?.texts.push(element);
        break;
    }
  }
  // A field never closed is decided on what it has.
  for (const field of fields) if (!field.decided) decideField(field, part, removed);
  for (const element of unwrapped) {
    removed.push(`${part}: ${element.localName === "mailMerge" ? "mail-merge data source" : `field ${element.getAttributeNS(W, "instr")?.trim()}`}`);
    if (element.localName === "mailMerge") element.parentNode!.removeChild(element);
    else unwrap(element);
  }
}

function decideField(field: { texts: Element[]; decided: boolean }, part: string, removed: string[]): void {
  field.decided = true;
  const instruction = field.texts.map((text) => text.textContent ?? "").join("");
  if (isSafeField(instruction)) return;
  removed.push(`${part}: field ${instruction.trim()}`);
  for (const text of field.texts) while (text.firstChild) text.removeChild(text.firstChild);
}

/** stripOpenDocumentXml removes, in one ODF part, every link attribute that leaves the package (hyperlinks to http, https and mailto stay) and xml:base. */
function stripOpenDocumentXml(doc: Document, part: string, removed: string[]): void {
  for (const element of allElements(doc)) {
    for (const attribute of Array.from(element.attributes)) {
      if (attribute.prefix === "xmlns" || attribute.name === "xmlns") continue;
      const local = attribute.localName ?? "";
      const isBase = attribute.name === "xml:base";
      if (!isBase && !(local === "href" || local === "image-data" || local === "src")) continue;
      if (!isBase && insidePackage(attribute.value)) continue;
      if (!isBase && element.localName === "a" && PLAIN_LINK.test(attribute.value.trim())) continue;
      removed.push(`${part}: ${element.nodeName} ${attribute.name}`);
      element.removeAttributeNode(attribute);
    }
  }
}

// Parts that may hold a reference; others are only checked for a DTD.
const WORD_SUSPECT = /instrText|fldSimple|href|src\s*=|mailMerge|&#/i;
const ODF_SUSPECT = /href|image-data|src\s*=|xml:base|&#/i;

/**
 * stripPackage removes external references from a DOCX ("docx") or ODT ("odt"): relationships
 * (DOCX), link attributes, fields. XML parts are parsed without DTDs or entities (a part declaring
 * one is refused); the package is rewritten only when something was removed, entries in the same
 * order (an ODT's mimetype stays first and stored).
 */
export async function stripPackage(bytes: Uint8Array, kind: "docx" | "odt", limits: ZipLimits): Promise<Stripped> {
  const what = kind === "docx" ? "DOCX" : "OpenDocument file";
  const entries = readZipDirectory(bytes, limits, what);
  const changed = new Map<string, string>();
  const removed: string[] = [];
  let budget = limits.maxUncompressedBytes;
  for (const entry of entries) {
    const name = entry.name.toLowerCase();
    const isRels = kind === "docx" && name.endsWith(".rels");
    if (!isRels && !name.endsWith(".xml")) continue;
    const data = await readZipEntryAsync(bytes, entry, budget, what);
    budget -= data.length;
    const text = xmlText(data, entry.name, what);
    if (!isRels && !(kind === "docx" ? WORD_SUSPECT : ODF_SUSPECT).test(text)) continue;
    const doc = parseXml(text, entry.name);
    const before = removed.length;
    if (isRels) stripRelationships(doc, entry.name, removed);
    else if (kind === "docx") stripWordXml(doc, entry.name, removed);
    else stripOpenDocumentXml(doc, entry.name, removed);
    if (removed.length > before) changed.set(entry.name, serializeNode(doc as unknown as Node));
  }
  if (changed.size === 0) return { bytes, removed };
  return { bytes: await rewrite(bytes, entries, changed, what), removed };
}

async function rewrite(bytes: Uint8Array, entries: readonly ZipEntry[], changed: ReadonlyMap<string, string>, what: string): Promise<Buffer> {
  const files = [];
  for (const entry of entries) {
    if (entry.name.endsWith("/")) continue;
    const replaced = changed.get(entry.name);
    const data = replaced === undefined ? await readZipEntryAsync(bytes, entry, Number.MAX_SAFE_INTEGER, what) : Buffer.from(replaced, "utf8");
    files.push({ name: entry.name, data, stored: entry.name === "mimetype" });
  }
  return writeZip(files);
}
