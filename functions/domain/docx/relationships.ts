import type { Document, Element } from "@xmldom/xmldom";
import type { DocxPackage } from "#domain/docx/package.ts";
import { NS, childElements, parseXml, serializeNode } from "#domain/docx/xml.ts";

/** RelationshipType names the relationship types Signet follows or writes. */
export const RelationshipType = {
  image: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image",
  header: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/header",
  footer: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer",
  footnotes: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes",
  endnotes: "http://schemas.openxmlformats.org/officeDocument/2006/relationships/endnotes",
} as const;

/** relsPathOf gives the relationships part of a part: word/header1.xml -> word/_rels/header1.xml.rels. */
function relsPathOf(part: string): string {
  const slash = part.lastIndexOf("/");
  return `${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`;
}

/** resolveTarget turns a relationship target into a package part name, relative to the source part. */
function resolveTarget(sourcePart: string, target: string): string {
  if (target.startsWith("/")) return target.slice(1);
  const segments = sourcePart.split("/").slice(0, -1);
  for (const segment of target.split("/")) {
    if (segment === "..") segments.pop();
    else if (segment !== "." && segment !== "") segments.push(segment);
  }
  return segments.join("/");
}

/** Relationships is the editable relationships part of one source part. */
export class Relationships {
  private dirty = false;

  private constructor(
    private readonly pkg: DocxPackage,
    private readonly sourcePart: string,
    private readonly doc: Document,
  ) {}

  /** Relationships.of reads (or starts) the relationships of a source part. */
  static of(pkg: DocxPackage, sourcePart: string): Relationships {
    const path = relsPathOf(sourcePart);
    const xml = pkg.text(path) ?? `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="${NS.rels}"/>`;
    return new Relationships(pkg, sourcePart, parseXml(xml, path));
  }

  private get root(): Element {
    return this.doc.documentElement!;
  }

  /** list returns every relationship as id, type, target part (internal targets resolved). */
  list(): Array<{ id: string; type: string; target: string; external: boolean }> {
    return childElements(this.root, NS.rels, "Relationship").map((element) => {
      const external = element.getAttribute("TargetMode") === "External";
      const target = element.getAttribute("Target") ?? "";
      return {
        id: element.getAttribute("Id") ?? "",
        type: element.getAttribute("Type") ?? "",
        target: external ? target : resolveTarget(this.sourcePart, target),
        external,
      };
    });
  }

  /** add appends an internal relationship (target relative to the source part) and returns its new id. */
  add(type: string, target: string): string {
    const taken = new Set(this.list().map((relationship) => relationship.id));
    let n = taken.size + 1;
    while (taken.has(`rIdSignet${n}`)) n++;
    const id = `rIdSignet${n}`;
    const element = this.doc.createElementNS(NS.rels, "Relationship");
    element.setAttribute("Id", id);
    element.setAttribute("Type", type);
    element.setAttribute("Target", target);
    this.root.appendChild(element);
    this.dirty = true;
    return id;
  }

  /** save writes the part back when it changed. */
  save(): void {
    if (this.dirty) this.pkg.set(relsPathOf(this.sourcePart), serializeNode(this.doc));
  }
}

/** ensureContentTypeDefault adds a Default content type for a file extension when none exists. */
export function ensureContentTypeDefault(pkg: DocxPackage, extension: string, contentType: string): void {
  const path = "[Content_Types].xml";
  const doc = parseXml(pkg.text(path) ?? `<Types xmlns="${NS.ct}"/>`, path);
  const root = doc.documentElement!;
  const exists = childElements(root, NS.ct, "Default").some((element) => element.getAttribute("Extension")?.toLowerCase() === extension);
  if (exists) return;
  const element = doc.createElementNS(NS.ct, "Default");
  element.setAttribute("Extension", extension);
  element.setAttribute("ContentType", contentType);
  root.insertBefore(element, root.firstChild);
  pkg.set(path, `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>${serializeNode(root)}`);
}
