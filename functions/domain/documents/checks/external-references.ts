import { isUtf8 } from "node:buffer";
import { isSafeField } from "#domain/documents/checks/fields.ts";
import { refuseSvgz, sanitiseSvgPart, SVG_HEAD, svgPartKind, svgPartTooLarge } from "#domain/documents/checks/package-svg.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { decodeUtf8, encodeUtf8, replaceInSlices, TimeSlice, wordsIn } from "#domain/shared/time-slice.ts";
import { readZipEntryAsync, readZipEntryHead, writeZip, type ZipContainer, type ZipEntry, type ZipLimits } from "#domain/shared/zip-container.ts";

/**
 * External references: everything in a DOCX or ODT that makes a reader load something from
 * outside the package (a URL, a path on the converting machine, a share) is removed before
 * LibreOffice sees the document. A linked picture becomes an empty frame or its
 * placeholder, a linked section or field keeps its last result; ordinary hyperlinks (http, https,
 * mailto) stay clickable, since nothing fetches them. The network namespace and the office
 * worker without egress stay the boundary; this is the part that makes the output predictable.
 *
 * Parts are rewritten at the level of XML tags, not through a DOM: a DOM of a 20 MB part took
 * xmldom 37 s here, on the event loop. Start tags are matched whole (quoted attribute values may
 * hold ">"), attribute values and instruction text are decoded as a parser would (character
 * references, CDATA, comments); names cannot be escaped in XML, and a part declaring a DTD (the
 * only source of other entities) is refused. The passes over a part pause every few milliseconds
 * (TimeSlice), so a 100 MB part does not hold the event loop while it is rewritten.
 */

/** Stripped is a package with its external references removed, and what was removed (for the log and tests). */
export interface Stripped {
  bytes: Uint8Array;
  /** One entry per removed reference: "<part>: <what>". */
  removed: string[];
  /** Bytes inflated to check the package, embedded packages included (for the caller's budget). */
  read: number;
}

/**
 * EmbeddedCheck prepares a part that is a document of its own (a package, an RTF, a compound file:
 * an altChunk, an embedded object) with the same rules, within `budget` inflated bytes; returns the
 * bytes LibreOffice may see, what went and what it read.
 */
export type EmbeddedCheck = (data: Buffer, part: string, budget: number) => Promise<Stripped>;

/** embeddedKind tells a part that is a document of its own by its first bytes. */
function embeddedKind(head: Uint8Array): "zip" | "rtf" | "compound" | undefined {
  const start = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 8));
  if (start.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) return "zip";
  if (start.subarray(0, 5).toString("latin1") === "{\\rtf") return "rtf";
  if (start.equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))) return "compound";
  return undefined;
}

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

const NAMED: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** decodeXml decodes character data as a parser does: predefined and numeric character references, CDATA, no comments or processing instructions. */
export function decodeXml(text: string): string {
  return text
    .replace(/<!--[\s\S]*?-->|<\?[\s\S]*?\?>/g, "")
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, data: string) => data.replace(/&/g, "&amp;"))
    .replace(/&(#x[0-9a-f]+|#\d+|lt|gt|amp|quot|apos);/gi, (_, ref: string) => {
      if (ref[0] !== "#") return NAMED[ref.toLowerCase()] ?? "";
      const code = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
    });
}

const ATTRIBUTES = String.raw`((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*`;
const ATTRIBUTE = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
// A whole start (or empty-element) tag: name, attributes (quoted values may hold ">"), "/".
const START_TAG = new RegExp(String.raw`<([A-Za-z_][^\s/>]*)${ATTRIBUTES}(\/?)>`, "g");

interface Attribute {
  name: string;
  value: string;
  raw: string;
}

function attributes(text: string): Attribute[] {
  return [...text.matchAll(ATTRIBUTE)].map((match) => ({ name: match[1]!, value: decodeXml(match[2] ?? match[3] ?? ""), raw: match[0] }));
}

const local = (name: string) => name.slice(name.indexOf(":") + 1);

/** editAttributes rewrites start tags, dropping the attributes `drop` names; returns the new text and what went. */
async function editAttributes(
  xml: string,
  drop: (element: string, attribute: Attribute) => boolean,
  slice: TimeSlice,
): Promise<{ xml: string; dropped: string[] }> {
  const dropped: string[] = [];
  const out = await replaceInSlices(
    xml,
    START_TAG,
    ([tag, element = "", list = "", close = ""]) => {
      const all = attributes(list);
      const kept = all.filter((attribute) => !drop(element, attribute));
      if (kept.length === all.length) return tag;
      for (const attribute of all) if (!kept.includes(attribute)) dropped.push(`${element} ${attribute.name}`);
      return `<${element}${kept.map((attribute) => ` ${attribute.raw}`).join("")}${close}>`;
    },
    slice,
  );
  return { xml: out, dropped };
}

const RELATIONSHIP = new RegExp(String.raw`<((?:[\w.-]+:)?Relationship)${ATTRIBUTES}(?:\/>|>\s*<\/\1\s*>)`, "g");

/** stripRelationships removes every relationship to a target outside the package, except plain hyperlinks (http, https, mailto). */
function stripRelationships(xml: string, part: string, removed: string[], slice: TimeSlice, chunks: string[] = []): Promise<string> {
  return replaceInSlices(
    xml,
    RELATIONSHIP,
    ([element, , list = ""]) => {
      const values = Object.fromEntries(attributes(list).map((attribute) => [attribute.name, attribute.value]));
      const target = values.Target ?? "";
      const type = values.Type ?? "";
      const external = values.TargetMode?.toLowerCase() === "external" || outsideWordPackage(target);
      if (!external) {
        if (/\/afchunk$/i.test(type)) chunks.push(partOf(part, target));
        return element;
      }
      if (/\/hyperlink$/.test(type) && PLAIN_LINK.test(target.trim())) return element;
      removed.push(`${part}: relationship ${values.Id} (${type.split("/").pop()})`);
      return "";
    },
    slice,
  );
}

/** partOf resolves a relationship's internal target against the part its .rels file describes. */
function partOf(relsPart: string, target: string): string {
  const folder = relsPart.replace(/_rels\/[^/]*$/, "");
  const path = target.startsWith("/") ? target.slice(1) : folder + target;
  const out: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "..") out.pop();
    else if (segment !== "." && segment !== "") out.push(segment);
  }
  return out.join("/");
}

const WORD_LINK_ATTRIBUTES = new Set(["href", "src", "althref"]);
const INSTRUCTION_CONTENT = String.raw`((?:[^<]|<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>)*)`;
// Field characters and instruction runs, in document order.
const FIELD_TOKEN = new RegExp(
  String.raw`<(?:[\w.-]+:)?fldChar\b${ATTRIBUTES}\/?>|<((?:[\w.-]+:)?(?:del)?instrText)\b${ATTRIBUTES}(?:\/>|>${INSTRUCTION_CONTENT}<\/\2\s*>)`,
  "gd",
);
const FLD_SIMPLE = new RegExp(String.raw`<((?:[\w.-]+:)?fldSimple)\b${ATTRIBUTES}(\/?)>`, "g");
const MAIL_MERGE = new RegExp(String.raw`<((?:[\w.-]+:)?mailMerge)\b${ATTRIBUTES}(?:\/>|>[\s\S]*?<\/\1\s*>)`, "g");

/**
 * stripWordXml neutralises, in one WordprocessingML part: fields that load content (a simple
 * field's instruction is emptied, as is a complex field's, however it is split over runs; the
 * stored result stays), URL and path attributes (VML src, o:href, o:althref) and the mail-merge
 * data source.
 */
async function stripWordXml(xml: string, part: string, removed: string[], slice: TimeSlice, has: ReadonlySet<string>): Promise<string> {
  let out = xml;
  if (has.has("mailMerge")) {
    out = await replaceInSlices(
      out,
      MAIL_MERGE,
      () => {
        removed.push(`${part}: mail-merge data source`);
        return "";
      },
      slice,
    );
  }
  if (has.has("fldSimple")) {
    out = await replaceInSlices(
      out,
      FLD_SIMPLE,
      ([tag, name = "", list = "", close = ""]) => {
        const all = attributes(list);
        const instr = all.find((attribute) => local(attribute.name) === "instr");
        if (!instr || isSafeField(instr.value)) return tag;
        removed.push(`${part}: field ${instr.value.trim()}`);
        return `<${name}${all.map((attribute) => ` ${attribute === instr ? `${attribute.name}=""` : attribute.raw}`).join("")}${close}>`;
      },
      slice,
    );
  }
  if (has.has("instrText")) out = await stripComplexFields(out, part, removed, slice);
  if (has.has("href") || has.has("src")) {
    const edited = await editAttributes(out, (_, attribute) => !attribute.name.startsWith("xmlns") && WORD_LINK_ATTRIBUTES.has(local(attribute.name)), slice);
    for (const what of edited.dropped) removed.push(`${part}: ${what}`);
    out = edited.xml;
  }
  return out;
}

interface Field {
  texts: Array<{ start: number; end: number; text: string }>;
  decided: boolean;
}

async function stripComplexFields(xml: string, part: string, removed: string[], slice: TimeSlice): Promise<string> {
  const open: Field[] = [];
  const cuts: Array<{ start: number; end: number }> = [];
  const decide = (field: Field) => {
    field.decided = true;
    const instruction = field.texts.map((text) => text.text).join("");
    if (isSafeField(instruction)) return;
    removed.push(`${part}: field ${instruction.trim()}`);
    cuts.push(...field.texts);
  };
  // Only read: every token is given back as it is, the cuts are made below.
  await replaceInSlices(
    xml,
    FIELD_TOKEN,
    (match) => {
      fieldToken(match, open, decide);
      return match[0];
    },
    slice,
  );
  for (const field of open) if (!field.decided) decide(field);
  if (cuts.length === 0) return xml;
  let out = "";
  let at = 0;
  for (const cut of cuts.sort((a, b) => a.start - b.start)) {
    out += xml.slice(at, cut.start);
    at = cut.end;
  }
  return out + xml.slice(at);
}

/** fieldToken follows one field character or instruction run (a FIELD_TOKEN match) through the open fields. */
function fieldToken(match: RegExpExecArray, open: Field[], decide: (field: Field) => void): void {
  if (match[2] === undefined) {
    const type = attributes(match[1] ?? "").find((attribute) => local(attribute.name) === "fldCharType")?.value;
    if (type === "begin") open.push({ texts: [], decided: false });
    else if (type === "separate" || type === "end") {
      const field = open.at(-1);
      if (field && !field.decided) decide(field);
      if (type === "end") open.pop();
    }
    return;
  }
  // An instruction outside any field a reader would still see: it opens one of its own.
  if (open.length === 0 || open.at(-1)!.decided) open.push({ texts: [], decided: false });
  const content = match.indices?.[4];
  if (!content) return;
  open.at(-1)!.texts.push({ start: content[0], end: content[1], text: decodeXml(match[4]!) });
}

/** stripOpenDocumentXml removes, in one ODF part, every link attribute that leaves the package (hyperlinks to http, https and mailto stay) and xml:base. */
async function stripOpenDocumentXml(xml: string, part: string, removed: string[], slice: TimeSlice): Promise<string> {
  const edited = await editAttributes(
    xml,
    (element, attribute) => {
      if (attribute.name === "xml:base") return true;
      const name = local(attribute.name);
      if (attribute.name.startsWith("xmlns") || !(name === "href" || name === "image-data" || name === "src")) return false;
      if (insidePackage(attribute.value)) return false;
      return !(local(element) === "a" && PLAIN_LINK.test(attribute.value.trim()));
    },
    slice,
  );
  for (const what of edited.dropped) removed.push(`${part}: ${what}`);
  return edited.xml;
}

// Parts holding none of these words hold no reference and are only checked (XML is case-sensitive).
const WORD_MARKERS = ["instrText", "fldSimple", "href", "src", "mailMerge"];
const ODF_MARKERS = ["href", "image-data", "src", "xml:base"];

const DTD_MARKERS = ["<!DOCTYPE", "<!ENTITY"];

/** checkXmlPart refuses an XML part that is not UTF-8 or declares a DTD (`has` holds the words found in it), without decoding it. */
function checkXmlPart(data: Buffer, part: string, what: string, has: ReadonlySet<string>): void {
  const head = data.subarray(0, 200).toString("latin1");
  const declared = /^(?:\uFEFF|\xEF\xBB\xBF)?<\?xml[^>]*encoding\s*=\s*["']([^"']+)["']/.exec(head)?.[1];
  if (!isUtf8(data) || (declared && !/^utf-?8$/i.test(declared))) {
    throw new SignetError("INVALID_DOCUMENT", `The ${what} part ${part} is not UTF-8 XML; save the document again from a word processor.`);
  }
  if (DTD_MARKERS.some((marker) => has.has(marker))) {
    throw new SignetError(
      "INVALID_DOCUMENT",
      `The ${what} part ${part} declares a DTD or entities, which Signet refuses for safety; save the document again from a word processor.`,
    );
  }
}

/**
 * stripPackage removes external references from a DOCX ("docx") or ODT ("odt"): relationships
 * (DOCX), link attributes, fields, and those of SVG pictures (package-svg.ts: every part LibreOffice
 * would read as an SVG is replaced by its sanitised text). A part that is a document of its own (an
 * altChunk, an embedded package, RTF or compound file) goes through `embedded`, which applies the
 * same rules; an altChunk of any other kind (HTML, MHT, text) is refused, since LibreOffice imports
 * it as a document of its own. Every XML part must be UTF-8 without a DTD (else 422); a part is
 * decoded only when it holds a word a reference needs; the package is rewritten only when
 * something was removed or changed, entries in the same order (an ODT's mimetype stays first and stored).
 */
export async function stripPackage(
  zip: ZipContainer,
  kind: "docx" | "odt",
  limits: ZipLimits & { maxImagePixels: number; maxSvgBytes: number },
  embedded?: EmbeddedCheck,
): Promise<Stripped> {
  const what = kind === "docx" ? "DOCX" : "OpenDocument file";
  const { bytes, entries } = zip;
  const changed = new Map<string, string | Uint8Array>();
  const removed: string[] = [];
  const chunks: string[] = [];
  const kinds = new Map<string, ReturnType<typeof embeddedKind>>();
  let budget = limits.maxUncompressedBytes;
  const slice = new TimeSlice();
  for (const entry of entries) {
    const name = entry.name.toLowerCase();
    const isRels = kind === "docx" && name.endsWith(".rels");
    // Every part, whatever its name: a relationship or a manifest can point a picture at any of them.
    if (!name.endsWith("/") && entry.uncompressedSize > 0) {
      const head = await readZipEntryHead(bytes, entry, SVG_HEAD, what);
      kinds.set(entry.name, embeddedKind(head));
      const other = await otherPart(bytes, entry, head, { what, odf: kind === "odt", budget, limits, embedded });
      if (other) {
        budget -= other.read;
        removed.push(...other.removed);
        if (other.replace !== undefined) changed.set(entry.name, other.replace);
        continue;
      }
    }
    if (!isRels && !name.endsWith(".xml")) continue;
    const data = await readZipEntryAsync(bytes, entry, budget, what);
    budget -= data.length;
    const markers = isRels ? ["Relationship"] : kind === "docx" ? WORD_MARKERS : ODF_MARKERS;
    const has = await wordsIn(data, [...DTD_MARKERS, ...markers], slice);
    checkXmlPart(data, entry.name, what, has);
    if (!markers.some((marker) => has.has(marker))) continue;
    const text = await decodeUtf8(data, slice);
    const before = removed.length;
    const out = isRels
      ? await stripRelationships(text, entry.name, removed, slice, chunks)
      : await (kind === "docx" ? stripWordXml : stripOpenDocumentXml)(text, entry.name, removed, slice, has);
    if (removed.length > before) changed.set(entry.name, out);
  }
  for (const chunk of chunks) if (kinds.has(chunk) && !kinds.get(chunk)) throw refuseChunk(chunk, what);
  const read = limits.maxUncompressedBytes - budget;
  if (changed.size === 0) return { bytes, removed, read };
  return { bytes: await rewrite(bytes, entries, changed, what, slice), removed, read };
}

/** refuseChunk is the 422 for an altChunk LibreOffice would import as HTML, MHT or text (documents Signet does not check inside a DOCX). */
function refuseChunk(part: string, what: string): SignetError {
  return new SignetError(
    "INVALID_DOCUMENT",
    `The ${what} part ${part} is an embedded document of a kind Signet does not check (an altChunk holding HTML, MHT or text); paste its content into the document itself and upload it again.`,
    { details: [{ field: "document", issue: `${part}: altChunk` }] },
  );
}

/**
 * otherPart handles a part that is not the package's own XML: an SVG picture (sanitised), or a
 * document of its own (checked by `embedded`); undefined for anything else.
 */
async function otherPart(
  bytes: Uint8Array,
  entry: ZipEntry,
  head: Buffer,
  context: { what: string; odf: boolean; budget: number; limits: { maxImagePixels: number; maxSvgBytes: number }; embedded: EmbeddedCheck | undefined },
): Promise<{ replace?: string | Uint8Array; removed: string[]; read: number } | undefined> {
  const svg = await svgPart(bytes, entry, head, { ...context, ...context.limits });
  if (svg) return { replace: svg.text, removed: svg.removed, read: svg.read };
  if (!context.embedded || !embeddedKind(head)) return undefined;
  const data = await readZipEntryAsync(bytes, entry, context.budget, context.what);
  const inner = await context.embedded(data, entry.name, context.budget - data.length);
  return { ...(inner.bytes === data ? {} : { replace: inner.bytes }), removed: inner.removed, read: data.length + inner.read };
}

/** svgPart sanitises an entry LibreOffice would read as an SVG picture (undefined for any other), refusing a compressed one. */
async function svgPart(
  bytes: Uint8Array,
  entry: ZipEntry,
  head: Buffer,
  context: { what: string; odf: boolean; budget: number; maxImagePixels: number; maxSvgBytes: number },
): Promise<{ text: string; removed: string[]; read: number } | undefined> {
  const kind = svgPartKind(entry.name, head, context.odf);
  if (kind === "svgz") throw refuseSvgz(entry.name, context.what);
  if (!kind) return undefined;
  // The sanitiser parses the whole text at once on the event loop: bounded like an SVG value to annotate.
  if (entry.uncompressedSize > context.maxSvgBytes) throw svgPartTooLarge(entry.name, context.what, context.maxSvgBytes);
  const data = await readZipEntryAsync(bytes, entry, context.budget, context.what);
  return { ...sanitiseSvgPart(data, entry.name, context.what, context), read: data.length };
}

async function rewrite(
  bytes: Uint8Array,
  entries: readonly ZipEntry[],
  changed: ReadonlyMap<string, string | Uint8Array>,
  what: string,
  slice: TimeSlice,
): Promise<Buffer> {
  const files = [];
  for (const entry of entries) {
    if (entry.name.endsWith("/")) continue;
    const replaced = changed.get(entry.name);
    const data =
      replaced === undefined
        ? await readZipEntryAsync(bytes, entry, Number.MAX_SAFE_INTEGER, what)
        : typeof replaced === "string"
          ? await encodeUtf8(replaced, slice)
          : replaced;
    files.push({ name: entry.name, data, stored: entry.name === "mimetype" });
  }
  return writeZip(files);
}
