import Docxtemplater, { type DXT } from "docxtemplater";
import { SignetError } from "#domain/shared/errors.ts";
import PizZip from "pizzip";
import type { DocxPackage } from "#domain/docx/package.ts";
import type { PartScan } from "#domain/docx/scan.ts";

interface TemplateErrorProperties {
  id?: string;
  explanation?: string;
  errors?: Array<{ properties?: TemplateErrorProperties }>;
}

/**
 * plainTags claims every tag as a plain placeholder named by its whole text, ahead of docxtemplater's
 * loop (#, ^, /, -) and raw-XML (@) modules, so those tags are never interpreted: a template's
 * {{#items}}...{{/items}} or {{@raw}} is looked up by that exact text and, when no field names it,
 * written back unchanged like any other unknown placeholder (docs/api.md: loops are not supported).
 */
function plainTags(): DXT.Module {
  // A fresh object per Docxtemplater instance: docxtemplater refuses to attach one module twice.
  return { name: "SignetPlainTags", matchers: () => [[(content: string) => content, undefined, { priority: 1_000_000 }]] } as unknown as DXT.Module;
}

/** PlaceholderPart is a content part as the scan saw it: its text, root declarations and "{{" paragraphs. */
export interface PlaceholderPart {
  name: string;
  xml: string;
  scan: Pick<PartScan, "rootDeclarations" | "braceParagraphs">;
}

// Written between the paragraphs handed to docxtemplater; it keeps unknown elements as they are.
const SPLIT = '<signet-split xmlns="urn:signet:split"/>';
/** TEMPLATE_CONTENT_TYPES declares word/document.xml in the one-part packages handed to docxtemplater. */
export const TEMPLATE_CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';

/**
 * fillPlaceholders replaces {{name}} placeholders in the given parts with docxtemplater. Names not
 * in `values` (as own properties: {{constructor}} is not Object.prototype.constructor) are written
 * back exactly as they were, so unrelated placeholders survive.
 *
 * Only the outermost paragraphs whose text holds "{{" go through docxtemplater (a placeholder
 * never spans paragraphs), gathered into one small document per part and spliced back by position:
 * docxtemplater's work is synchronous and grows with everything it reads, and on a whole 200,000-
 * element document it held the event loop for seconds.
 */
export function fillPlaceholders(pkg: DocxPackage, parts: readonly PlaceholderPart[], values: Readonly<Record<string, string>>): void {
  for (const part of parts) {
    const spans = part.scan.braceParagraphs;
    if (spans.length === 0) continue;
    const body = spans.map((span) => part.xml.slice(span.start, span.end)).join(SPLIT);
    const rendered = render(`<w:document${part.scan.rootDeclarations}><w:body>${body}</w:body></w:document>`, values);
    const inner = rendered.slice(rendered.indexOf("<w:body>") + "<w:body>".length, rendered.lastIndexOf("</w:body>"));
    const paragraphs = inner.split(SPLIT);
    if (paragraphs.length !== spans.length) throw new Error(`docxtemplater changed the paragraph count of ${part.name}`);
    const out: string[] = [];
    let at = 0;
    spans.forEach((span, i) => {
      out.push(part.xml.slice(at, span.start), paragraphs[i]!);
      at = span.end;
    });
    out.push(part.xml.slice(at));
    const text = out.join("");
    if (text !== part.xml) pkg.set(part.name, text);
  }
}

function render(documentXml: string, values: Readonly<Record<string, string>>): string {
  const zip = new PizZip();
  zip.file("[Content_Types].xml", TEMPLATE_CONTENT_TYPES);
  zip.file("word/document.xml", documentXml);
  let doc: Docxtemplater;
  try {
    doc = new Docxtemplater(zip, {
      delimiters: { start: "{{", end: "}}" },
      syntax: { allowUnopenedTag: true, allowUnclosedTag: true, changeDelimiterPrefix: null },
      paragraphLoop: false,
      linebreaks: true,
      errorLogging: false,
      modules: [plainTags()],
      parser: (tag) => {
        const name = tag.trim();
        return { get: () => (Object.hasOwn(values, name) ? values[name] : undefined) };
      },
      nullGetter: (part) => `{{${part.value}}}`,
    });
    doc.render({});
  } catch (error) {
    throw templateSyntaxError(error);
  }
  return doc.getZip().file("word/document.xml")!.asText();
}

/** templateSyntaxError turns docxtemplater's error about unreadable {{ }} tags into INVALID_DOCUMENT with its explanations. */
export function templateSyntaxError(error: unknown): SignetError {
  const properties = (error as { properties?: TemplateErrorProperties }).properties;
  const explanations = (properties?.errors ?? [{ properties }])
    .map((inner) => inner.properties?.explanation)
    .filter((text): text is string => typeof text === "string");
  return new SignetError("INVALID_DOCUMENT", "The template's {{ }} placeholders cannot be read; fix them (see details) or remove the braces.", {
    details: explanations.slice(0, 20).map((issue) => ({ field: "document", issue })),
    cause: error,
  });
}
