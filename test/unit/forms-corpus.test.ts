import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";

// The form corpus (issue 39, item 4): real fillable forms and the ground truth scripts/forms-manifest.mjs
// reads from them with qpdf, cross-checked with MuPDF and pdfsig. The form features are measured
// against this manifest, so it must cover the files exactly; test/integration/forms-manifest.test.ts
// regenerates it and checks that nothing changed.
const formsDir = join(repoRoot, "test/fixtures/forms");
const readme = readFileSync(join(formsDir, "README.md"), "utf8");
const manifestText = readFileSync(join(formsDir, "manifest.json"), "utf8");

type FieldType = "text" | "checkbox" | "radio" | "combo" | "list" | "signature" | "pushbutton" | "unknown";
interface Field {
  name: string;
  type: FieldType;
  flags: string[];
  signed?: boolean;
  inFieldTree?: false;
  widgets: Array<{ page: number | null; rect: number[] | null }>;
}
interface Form {
  file: string;
  bytes: number;
  kind: "acroform" | "xfa-hybrid" | "xfa-dynamic" | "none";
  catalog: { docMdpPermissions: number | null };
  encryption: { userPasswordEmpty: boolean } | null;
  summary: { fields: number; byType: Partial<Record<FieldType, number>> };
  crossCheck: { mutool: { fields: number }; differences: string[] };
  fields: Field[];
}
const manifest = JSON.parse(manifestText) as { forms: Form[] };

/** readmeRows reads the table of files: the first cell (a file name in backticks) and the origin cell. */
const readmeRows = [...readme.matchAll(/^\| `([^`]+\.pdf)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \|$/gm)].map((match) => ({
  file: match[1]!,
  origin: match[2]!,
  licence: match[3]!.trim(),
}));
const pdfFiles = readdirSync(formsDir)
  .filter((name) => name.endsWith(".pdf"))
  .sort();
const fillable = (field: Field) => field.type !== "pushbutton" && field.type !== "unknown" && field.inFieldTree !== false;

describe("the form corpus", () => {
  it("lists every file in its README with origin and licence, and holds no file the README does not list", () => {
    expect(readmeRows.map((row) => row.file).sort()).toEqual(pdfFiles);
    for (const row of readmeRows) {
      expect(row.origin, row.file).toMatch(/^[\w.-]+\/[\w.-]+ `[^`]+` @ `[0-9a-f]{40}`$/);
      expect(row.licence, row.file).not.toBe("");
    }
  });

  it("keeps each file under 5 MB and the folder under 25 MB", () => {
    const sizes = pdfFiles.map((file) => statSync(join(formsDir, file)).size);
    expect(Math.max(...sizes)).toBeLessThan(5 * 1024 * 1024);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThan(25 * 1024 * 1024);
  });

  it("has one manifest entry per file, in file-name order", () => {
    expect(manifest.forms.map((form) => form.file)).toEqual(pdfFiles);
  });

  it("reads the same fields, widgets, pages and signatures with MuPDF and pdfsig as with qpdf", () => {
    for (const form of manifest.forms) {
      expect(form.crossCheck.differences, form.file).toEqual([]);
      expect(form.crossCheck.mutool.fields, form.file).toBe(form.summary.fields);
    }
  });

  it("holds at least 30 forms with a fillable field, every field type, each form kind and the hard cases", () => {
    const withFields = manifest.forms.filter((form) => form.fields.some(fillable));
    expect(withFields.length).toBeGreaterThanOrEqual(30);
    const kinds: Record<string, number> = {};
    const types: Record<string, number> = {};
    for (const form of manifest.forms) {
      kinds[form.kind] = (kinds[form.kind] ?? 0) + 1;
      for (const [type, count] of Object.entries(form.summary.byType)) types[type] = (types[type] ?? 0) + count;
    }
    const fields = manifest.forms.flatMap((form) => form.fields.filter((field) => field.inFieldTree !== false));
    console.log(`form corpus: ${manifest.forms.length} files, ${withFields.length} with fillable fields, ${fields.length} terminal fields`);
    console.table({ kinds, types });
    for (const kind of ["acroform", "xfa-hybrid", "xfa-dynamic"]) expect(kinds[kind] ?? 0, kind).toBeGreaterThanOrEqual(2);
    for (const type of ["text", "checkbox", "radio", "combo", "list", "signature"]) expect(types[type] ?? 0, type).toBeGreaterThanOrEqual(5);
    expect(fields.filter((field) => field.flags.includes("comb")).length).toBeGreaterThan(0);
    expect(fields.filter((field) => field.flags.includes("multiSelect")).length).toBeGreaterThan(0);
    expect(fields.filter((field) => field.signed).length).toBeGreaterThanOrEqual(3);
    expect(manifest.forms.filter((form) => form.encryption?.userPasswordEmpty).length).toBeGreaterThanOrEqual(2);
    expect(manifest.forms.some((form) => form.catalog.docMdpPermissions !== null)).toBe(true);
    // The README's counts are the manifest's.
    for (const [kind, count] of Object.entries(kinds)) expect(readme).toContain(`${count} ${kind}`);
    expect(readme).toContain(`Terminal fields: ${fields.length.toLocaleString("en-US")}`);
  });

  it("places every widget of a fillable field on a page with a rectangle", () => {
    for (const form of manifest.forms) {
      for (const field of form.fields.filter(fillable)) {
        for (const widget of field.widgets) {
          expect(widget.page, `${form.file} ${field.name}`).toBeGreaterThanOrEqual(1);
          expect(widget.rect, `${form.file} ${field.name}`).toHaveLength(4);
        }
      }
    }
  });
});
