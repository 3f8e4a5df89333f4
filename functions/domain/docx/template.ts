import type { Document, Element } from "@xmldom/xmldom";
import type { DocxPackage } from "#domain/docx/package.ts";
import { RelationshipType, Relationships } from "#domain/docx/relationships.ts";
import { scanPart, yieldToLoop, type PartScan } from "#domain/docx/scan.ts";
import { NS, XmlWriter, attr, childElements, descendants, firstChild, parseXml, serializeNode } from "#domain/docx/xml.ts";

/** ControlKind is what a content control can hold, which decides the field types it accepts. */
export type ControlKind = "text" | "block" | "table" | "checkbox" | "picture" | "repeat";

/** Control is one content control (w:sdt) with everything a field can be matched against. */
export interface Control {
  /** The w:sdt element, inside its part's fragment DOM. */
  element: Element;
  part: TemplatePart;
  /** Position among the controls of its part, in document order. */
  index: number;
  /** SuperDoc field ids: `fieldId` of a JSON w:tag, or a legacy w:tag with w:fieldTypeShort. */
  fieldIds: string[];
  /** The w:id value. */
  sdtId: string | null;
  /** A plain-string w:tag (the Word "Tag"). */
  tag: string | null;
  /** `group` of a JSON w:tag. */
  group: string | null;
  alias: string | null;
  kind: ControlKind;
}

/** TemplatePart is one content part (body, header, footer, notes) with its controls parsed. */
export interface TemplatePart {
  name: string;
  xml: string;
  scan: PartScan;
  writer: XmlWriter;
  /** One parsed w:sdt per outermost control span, same order as scan.controls. */
  fragments: Element[];
  dirty: Set<number>;
}

const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** Template is a DOCX opened for filling: its content parts scanned, their controls parsed. */
export class Template {
  readonly parts: TemplatePart[] = [];
  readonly controls: Control[] = [];
  private readonly controlFragment = new Map<Element, { part: TemplatePart; fragment: number }>();
  private readonly widths = new Map<number, number>();

  private constructor(readonly pkg: DocxPackage) {}

  /** Template.open scans the main document and every header, footer, footnotes and endnotes part. */
  static async open(pkg: DocxPackage): Promise<Template> {
    const template = new Template(pkg);
    for (const name of contentParts(pkg)) await template.addPart(name);
    return template;
  }

  /** placeholders lists the distinct {{name}} placeholders in the text of every content part. */
  placeholders(): string[] {
    const names = new Set<string>();
    for (const part of this.parts) {
      for (const text of part.scan.paragraphTexts) {
        if (!text.includes("{{")) continue;
        for (const match of text.matchAll(PLACEHOLDER)) names.add(match[1]!);
      }
    }
    return [...names];
  }

  /** maxDrawingId is the largest drawing object id in the document. */
  maxDrawingId(): number {
    return Math.max(0, ...this.parts.map((part) => part.scan.maxDrawingId));
  }

  /** touch marks the control's fragment as changed so save() writes it back. */
  touch(control: Control): void {
    const owner = this.controlFragment.get(control.element);
    if (owner) owner.part.dirty.add(owner.fragment);
  }

  /** textWidthPx is the text width (page width minus margins, CSS px) of the section holding a control. */
  textWidthPx(control: Control): number {
    const body = this.parts[0]!;
    let span = body.scan.sections.at(-1);
    if (control.part === body) {
      const owner = this.controlFragment.get(control.element)!;
      const at = body.scan.controls[owner.fragment]!.start;
      span = body.scan.sections.find((section) => section.start > at) ?? span;
    }
    if (!span) return DEFAULT_TEXT_WIDTH_PX;
    const known = this.widths.get(span.start);
    if (known !== undefined) return known;
    const width = sectionTextWidth(body, span);
    this.widths.set(span.start, width);
    return width;
  }

  /** save writes every changed part back into the package. */
  save(): void {
    for (const part of this.parts) {
      if (part.dirty.size === 0) continue;
      const out: string[] = [];
      let at = 0;
      part.scan.controls.forEach((span, i) => {
        out.push(part.xml.slice(at, span.start));
        out.push(part.dirty.has(i) ? serializeNode(part.fragments[i]!) : part.xml.slice(span.start, span.end));
        at = span.end;
      });
      out.push(part.xml.slice(at));
      this.pkg.set(part.name, out.join(""));
    }
  }

  private async addPart(name: string): Promise<void> {
    const xml = this.pkg.text(name);
    if (xml === undefined) return;
    const scan = await scanPart(xml, name);
    await yieldToLoop();
    const part: TemplatePart = { name, xml, scan, writer: undefined as never, fragments: [], dirty: new Set() };
    const doc = parseFragments(part, scan.controls);
    const prefixes: Record<string, string> = {};
    for (const [prefix, uri] of scan.prefixes) {
      const key = Object.entries(NS).find(([, value]) => value === uri)?.[0];
      if (key && prefixes[key] === undefined) prefixes[key] = prefix;
    }
    part.writer = new XmlWriter(doc, prefixes);
    part.fragments = childElements(doc.documentElement!).map((holder) => childElements(holder)[0]!);
    this.parts.push(part);
    await yieldToLoop();
    let index = 0;
    for (let i = 0; i < part.fragments.length; i++) {
      const fragment = part.fragments[i]!;
      for (const element of [fragment, ...descendants(fragment, NS.w, "sdt")]) {
        this.controlFragment.set(element, { part, fragment: i });
        this.controls.push(describe(element, part, index++, element === fragment ? scan.controls[i]!.parent : (element.parentNode?.localName ?? "")));
      }
      if (i % DESCRIBE_SLICE === DESCRIBE_SLICE - 1) await yieldToLoop();
    }
  }
}

// Controls described between two turns of the event loop.
const DESCRIBE_SLICE = 200;

const DEFAULT_TEXT_WIDTH_PX = 624; // 6.5 in, Word's default text width on Letter paper

function sectionTextWidth(body: TemplatePart, span: { start: number; end: number }): number {
  const section = parseFragments(body, [span]).documentElement!;
  const sectPr = childElements(childElements(section)[0]!)[0]!;
  const size = firstChild(sectPr, NS.w, "pgSz");
  const margins = firstChild(sectPr, NS.w, "pgMar");
  const width = Number(size ? attr(size, NS.w, "w") : NaN);
  const left = Number(margins ? attr(margins, NS.w, "left") : 0) || 0;
  const right = Number(margins ? attr(margins, NS.w, "right") : 0) || 0;
  if (!Number.isFinite(width) || width - left - right <= 0) return DEFAULT_TEXT_WIDTH_PX;
  return (width - left - right) / 15; // twips (1/1440 in) to CSS px (1/96 in)
}

/** parseFragments parses the given spans of a part in one xmldom pass, each wrapped in a holder element. */
function parseFragments(part: Pick<TemplatePart, "name" | "xml" | "scan">, spans: ReadonlyArray<{ start: number; end: number }>): Document {
  const pieces = spans.map((span) => `<f>${part.xml.slice(span.start, span.end)}</f>`);
  return parseXml(`<signet-fragments${part.scan.rootDeclarations}>${pieces.join("")}</signet-fragments>`, part.name);
}

/** contentParts lists the parts that can hold content controls: body, headers, footers, notes. */
function contentParts(pkg: DocxPackage): string[] {
  const main = "word/document.xml";
  const wanted = new Set<string>([RelationshipType.header, RelationshipType.footer, RelationshipType.footnotes, RelationshipType.endnotes]);
  const others = Relationships.of(pkg, main)
    .list()
    .filter((relationship) => !relationship.external && wanted.has(relationship.type) && pkg.has(relationship.target))
    .map((relationship) => relationship.target);
  return [main, ...new Set(others)];
}

/** describeControl describes a w:sdt made while filling (a repeating-section item's copy), outside the template's list. */
export function describeControl(element: Element, part: TemplatePart): Control {
  return describe(element, part, -1, element.parentNode?.localName ?? "");
}

function describe(element: Element, part: TemplatePart, index: number, parent: string): Control {
  const properties = firstChild(element, NS.w, "sdtPr");
  const value = (local: string, ns: string = NS.w) => {
    const child = properties ? firstChild(properties, ns, local) : undefined;
    return child ? attr(child, NS.w, "val") : null;
  };
  const rawTag = value("tag");
  const sdtId = value("id");
  const alias = value("alias");
  const fieldIds: string[] = [];
  let group: string | null = null;
  let tag: string | null = null;
  const json = parseJsonTag(rawTag);
  if (json) {
    if (typeof json.fieldId === "string" || typeof json.fieldId === "number") fieldIds.push(String(json.fieldId));
    if (typeof json.group === "string") group = json.group;
  } else if (rawTag !== null && rawTag !== "") {
    tag = rawTag;
    if (properties && firstChild(properties, NS.w, "fieldTypeShort")) fieldIds.push(rawTag);
  }
  return { element, part, index, fieldIds, sdtId, tag, group, alias, kind: kindOf(element, properties, parent) };
}

function parseJsonTag(raw: string | null): Record<string, unknown> | undefined {
  if (!raw?.trimStart().startsWith("{")) return undefined;
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function kindOf(element: Element, properties: Element | undefined, parent: string): ControlKind {
  if (properties && firstChild(properties, NS.w14, "checkbox")) return "checkbox";
  if (properties && firstChild(properties, NS.w, "picture")) return "picture";
  if (properties && firstChild(properties, NS.w15, "repeatingSection")) return "repeat";
  const content = firstChild(element, NS.w, "sdtContent");
  const children = content
    ? childElements(content)
        .filter((child) => child.namespaceURI === NS.w)
        .map((child) => child.localName)
    : [];
  if (children.includes("tbl") || children.includes("tr")) return "table";
  if (children.includes("p") || children.includes("tc")) return "block";
  if (children.length === 0 && ["body", "tc", "txbxContent", "hdr", "ftr", "footnote", "endnote", "sdtContent"].includes(parent)) {
    return parent === "sdtContent" ? "text" : "block";
  }
  return "text";
}
