import Docxtemplater, { type DXT } from "docxtemplater";
import { SignetError } from "#domain/errors.ts";
import type { DocxPackage } from "#domain/docx/package.ts";

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

/**
 * fillPlaceholders replaces {{name}} placeholders in the given parts with docxtemplater. Names not
 * in `values` (as own properties: {{constructor}} is not Object.prototype.constructor) are written
 * back exactly as they were, so unrelated placeholders survive.
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
      modules: [plainTags()],
      parser: (tag) => {
        const name = tag.trim();
        return { get: () => (Object.hasOwn(values, name) ? values[name] : undefined) };
      },
      nullGetter: (part) => `{{${part.value}}}`,
    });
    doc.render({});
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
