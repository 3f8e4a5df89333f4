import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";
import { listPdfForm } from "#domain/pdf-forms/read-form-file.ts";
import type { ListedField } from "#domain/pdf-forms/list-form.ts";

// Issue 39 item 1: POST /v1/annotate/fields lists every terminal field of every corpus form as
// manifest.json (qpdf, cross-checked with MuPDF and pdfsig) has it: 100% listed.
const formsDir = join(repoRoot, "test/fixtures/forms");
interface ManifestField {
  name: string;
  type: string;
  flags: string[];
  value?: string | string[] | null;
  maxLength?: number;
  signed?: boolean;
  inFieldTree?: false;
  options?: Array<{ value: string; label: string }> | { states: string[] };
  widgets: Array<{ page: number | null; rect: number[] | null }>;
}
const manifest = JSON.parse(readFileSync(join(formsDir, "manifest.json"), "utf8")) as {
  forms: Array<{ file: string; kind: string; fields: ManifestField[] }>;
};

/** expected is the listing's shape of a manifest field. */
function expected(field: ManifestField) {
  const options = Array.isArray(field.options) ? field.options.map((option) => option.value) : (field.options?.states ?? []);
  return {
    name: field.name,
    type: field.type,
    // A value held in a stream is listed as its text (test/unit/forms-rich-text.test.ts checks which).
    value: field.value === "[dictionary or stream]" ? expect.any(String) : (field.value ?? null),
    options: [...options].sort(),
    flags: {
      readOnly: field.flags.includes("readOnly"),
      required: field.flags.includes("required"),
      multiline: field.flags.includes("multiline"),
      comb: field.flags.includes("comb"),
      multiSelect: field.flags.includes("multiSelect"),
      maxLength: field.maxLength ?? null,
    },
    widgets: sortWidgets(field.widgets.map((widget) => ({ page: widget.page, rect: widget.rect }))),
    ...(field.type === "signature" ? { signed: field.signed ?? false } : {}),
  };
}

// Widgets are compared as a set: the manifest lists a field's widgets in page order, the listing in /Kids order.
const sortWidgets = <T>(widgets: T[]) => [...widgets].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
const listed = (field: ListedField) => ({ ...field, options: field.options.map((option) => option.value).sort(), widgets: sortWidgets(field.widgets) });
const byName = <T extends { name: string }>(fields: T[]) => [...fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

describe("listing the fields of a PDF form", () => {
  it("lists every terminal field of every corpus form with the manifest's type, value, options, flags and widgets", async () => {
    let fields = 0;
    for (const form of manifest.forms) {
      const listing = await listPdfForm(readFileSync(join(formsDir, form.file)));
      expect(listing.form, form.file).toBe(form.kind);
      const want = byName(form.fields.filter((field) => field.inFieldTree !== false).map(expected));
      expect(byName(listing.fields.map(listed)), form.file).toEqual(want);
      fields += want.length;
    }
    expect(fields).toBeGreaterThan(1800);
  });
});
