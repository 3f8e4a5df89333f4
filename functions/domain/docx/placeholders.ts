import Docxtemplater from "docxtemplater";
import { SignetError } from "#domain/errors.ts";
import type { DocxPackage } from "#domain/docx/package.ts";
import { escapeText } from "#domain/docx/xml.ts";

interface TemplateErrorProperties {
  id?: string;
  explanation?: string;
  errors?: Array<{ properties?: TemplateErrorProperties }>;
}

/**
 * fillPlaceholders replaces {{name}} placeholders in the given parts with docxtemplater. Names not
 * in `values` are written back exactly as they were, so unrelated placeholders survive.
 */
export function fillPlaceholders(pkg: DocxPackage, parts: readonly string[], values: Readonly<Record<string, string>>): void {
  const zip = pkg.toZip();
  let doc: Docxtemplater;
  try {
    doc = new Docxtemplater(zip, {
      delimiters: { start: "{{", end: "}}" },
      syntax: { allowUnopenedTag: true, allowUnclosedTag: true, changeDelimiterPrefix: null },
      paragraphLoop: false,
      linebreaks: true,
      errorLogging: false,
      parser: (tag) => ({ get: (scope: Record<string, unknown>) => (tag === "." ? undefined : scope[tag.trim()]) }),
      nullGetter: (part) => {
        const original = `{{${part.value}}}`;
        // A raw-XML tag ({{@name}}) stands for a whole paragraph: give back a paragraph showing it.
        if (part.module === "rawxml") return `<w:p><w:r><w:t xml:space="preserve">{{@${escapeText(part.value)}}}</w:t></w:r></w:p>`;
        return part.module ? "" : original;
      },
    });
    doc.render(Object.fromEntries(Object.entries(values)));
  } catch (error) {
    const properties = (error as { properties?: TemplateErrorProperties }).properties;
    const explanations = (properties?.errors ?? [{ properties }])
      .map((inner) => inner.properties?.explanation)
      .filter((text): text is string => typeof text === "string");
    throw new SignetError("INVALID_DOCUMENT", "The template's {{ }} placeholders cannot be read; fix them (see details) or remove the braces.", {
      details: explanations.slice(0, 20).map((issue) => ({ field: "document", issue })),
      cause: error,
    });
  }
  const rendered = doc.getZip();
  for (const name of parts) {
    const file = rendered.file(name);
    if (!file) continue;
    const text = file.asText();
    if (text !== pkg.text(name)) pkg.set(name, text);
  }
}
