import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PDF, type PdfDict, type PdfStream } from "@libpdf/core";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { readPageTree } from "#domain/pdf/page-tree.ts";
import { type FieldValue, planValues } from "#domain/pdf-forms/field-values.ts";
import type { ErrorCode } from "#domain/shared/errors.ts";
import { fillPdfForm } from "#domain/pdf-forms/fill-form.ts";
import { firstShown } from "#domain/pdf-forms/appearance.ts";
import { parseDa } from "#domain/pdf-forms/widget-style.ts";
import { writerView } from "#domain/pdf-forms/writer-view.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

// Filling PDF forms in the domain (issue 39 item 2): the checks on values, /DA, and the appearance
// streams' layout (comb cells, alignment, wrapping) read back from the written stream.
const corpus = (file: string) => readFileSync(join(repoRoot, "test/fixtures/forms", file));
const fieldsOf = (file: string) => {
  const pdf = openPdfFile(corpus(file));
  return readForm(pdf.latest, pdf.pageTree).fields;
};
const deps = { fonts: testFonts, maxPages: 10_000 };

/** appearanceOf fills one field and returns its first widget's normal appearance: the text positions (Tm x, y) and the box. */
async function appearanceOf(file: string, name: string, value: FieldValue["value"], dropXfa?: boolean) {
  const filled = await fillPdfForm(corpus(file), { fields: [{ name, value }], dropXfa }, deps);
  const pdf = await PDF.load(filled);
  const view = writerView(pdf);
  const field = readForm(view, readPageTree(view)).fields.find((item) => item.name === name)!;
  const normal = view.resolve((field.widgets[0]!.dict.get("AP") as PdfDict).get("N") as never) as PdfStream;
  const content = new TextDecoder("latin1").decode(normal.getDecodedData());
  const positions = [...content.matchAll(/1 0 0 1 ([-\d.]+) ([-\d.]+) Tm/g)].map((match) => [Number(match[1]), Number(match[2])] as const);
  const [, , width, height] = (normal.get("BBox") as unknown as { toArray(): Array<{ value: number }> }).toArray().map((item) => item.value);
  return { positions, width: width!, height: height!, content };
}

describe("PDF form values", () => {
  it.each([
    ["/Helv 0 Tf 0 g", { size: 0, color: [0, 0, 0] }],
    ["/F1 12 Tf 1 0 0 rg", { size: 12, color: [1, 0, 0] }],
    ["0 0 1 0 k /Cour 9.5 Tf", { size: 9.5, color: [1, 1, 0] }],
    ["/TiRo 10 Tf 0.5 g", { size: 10, color: [0.5, 0.5, 0.5] }],
    ["", { size: 0, color: [0, 0, 0] }],
  ])("reads /DA %j", (da, expected) => {
    expect(parseDa(da)).toEqual(expected);
  });

  it("takes a check box's true as its on-state and false as Off", () => {
    const fields = fieldsOf("pdflib-sample_form.pdf");
    const plan = planValues(fields, [
      { name: "PHD", value: true },
      { name: "HIGH SCHOOL DIPLOMA", value: false },
    ]);
    expect(plan.map((item) => item.value)).toEqual(["On", "Off"]);
  });

  it.each([
    ["a text over its max length", "pdflib-sample_form.pdf", { name: "STATE", value: "NYC" }, "INVALID_FIELD_VALUE", /at most 2/],
    ["a line break in a single-line field", "pdflib-sample_form.pdf", { name: "City", value: "a\nb" }, "INVALID_FIELD_VALUE", /single-line/],
    ["a radio state that does not exist", "pdflib-sample_form.pdf", { name: "Sex", value: "OTHER" }, "INVALID_FIELD_VALUE", /"MALE", "FEMALE"/],
    ["a boolean for a text field", "pdflib-sample_form.pdf", { name: "City", value: true }, "FIELD_TYPE_MISMATCH", /takes a string/],
    ["a list option that does not exist", "pdfcpu-listbox.pdf", { name: "llgender", value: "other" }, "INVALID_FIELD_VALUE", /not among its options/],
    ["two values for a single-select list", "pdfcpu-listbox.pdf", { name: "llgender", value: ["female", "male"] }, "FIELD_TYPE_MISMATCH", /not multi-select/],
    ["a value for a signature field", "pdflib-sample_form.pdf", { name: "EMPLOYEE SIGNATURE", value: "x" }, "FIELD_TYPE_MISMATCH", /signature/],
    ["a read-only field", "pdfcpu-arabic.pdf", { name: "firstName1", value: "x" }, "FIELD_READ_ONLY", /read-only/],
  ] as Array<[string, string, FieldValue, ErrorCode, RegExp]>)("refuses %s", async (_name, file, value, code, issue) => {
    const error = await expectSignetError((async () => planValues(fieldsOf(file), [value]))(), code);
    expect(error.details?.[0]?.issue).toMatch(issue);
  });

  it("takes several options of a multi-select list", () => {
    const plan = planValues(fieldsOf("pdfcpu-listbox.pdf"), [{ name: "llsex multiselect", value: ["female", "male"] }]);
    expect(plan[0]?.value).toEqual(["female", "male"]);
  });
});

describe("PDF form appearance streams", () => {
  it("puts each character of a comb field in its own cell", async () => {
    const { positions, width } = await appearanceOf("pdfbox-CombTest.pdf", "CombLeft", "12345");
    const cell = width / 10;
    expect(positions).toHaveLength(5);
    positions.forEach(([x], index) => {
      expect(x).toBeGreaterThan(index * cell);
      expect(x).toBeLessThan((index + 1) * cell);
    });
  });

  it("aligns by /Q: left near the left edge, right near the right edge, centred between", async () => {
    const left = await appearanceOf("pdfbox-AlignmentTests.pdf", "AlignLeft", "Signet");
    const middle = await appearanceOf("pdfbox-AlignmentTests.pdf", "AlignMiddle", "Signet");
    const right = await appearanceOf("pdfbox-AlignmentTests.pdf", "AlignRight", "Signet");
    expect(left.positions[0]![0]).toBeLessThan(5);
    expect(middle.positions[0]![0]).toBeGreaterThan(middle.width / 4);
    expect(middle.positions[0]![0]).toBeLessThan(middle.width / 2);
    expect(right.positions[0]![0]).toBeGreaterThan(right.width / 2);
  });

  it("wraps a multiline field's long text into lines inside the box, top down", async () => {
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(4).trim();
    const { positions, height, content } = await appearanceOf("pdfcpu-hebrew.pdf", "note1", text);
    const lines = [...new Set(positions.map(([, y]) => y))];
    expect(lines.length).toBeGreaterThan(1);
    expect(lines).toEqual([...lines].sort((a, b) => b - a));
    for (const y of lines) {
      expect(y).toBeGreaterThan(0);
      expect(y).toBeLessThan(height);
    }
    expect(content).toContain("/Tx BMC");
  });
});

describe("PDF list box appearances", () => {
  const labels = ["a", "b", "c", "d", "e", "f", "g", "h"];
  it.each([
    ["nothing selected: /TI", [], 2, 4, 2],
    ["the selected option in view from /TI", [3], 2, 4, 2],
    ["a selection above the view scrolls up to it", [0], 2, 4, 0],
    ["a selection below the view scrolls to it (the view stays full)", [6], 0, 4, 4],
    ["a selection far below the view comes to the top", [3], 0, 2, 3],
    ["the last option: the view ends with it", [7], 0, 4, 4],
    ["several: the first selected decides", [7, 1, 5], 3, 2, 1],
    ["a /TI past the end is the last option", [], 99, 4, 7],
    ["more lines than options: from the first", [7], 0, 20, 0],
  ])("%s", (_name, selected, topIndex, lines, top) => {
    expect(firstShown({ labels, selected, topIndex }, lines)).toBe(top);
  });

  it("draws every option that shows, the selected ones on Acrobat's highlight, clipped to the box", async () => {
    // pdfcpu-listbox "llsex multiselect": five options, all in view; female and inter chosen.
    const multi = await appearanceOf("pdfcpu-listbox.pdf", "llsex multiselect", ["female", "inter"]);
    expect([...multi.content.matchAll(/\/ActualText \(([^)]*)\)/g)].map((match) => match[1])).toEqual(["female", "male", "diverse", "inter", "undefined"]);
    expect(multi.content.match(/0\.6 0\.75 0\.85 rg/g)).toHaveLength(2);
    expect(multi.content).toMatch(/re\s+W\s+n/);
    const ys = multi.positions.map(([, y]) => y);
    expect(ys).toEqual([...ys].sort((a, b) => b - a));
    // Eight options in a box five lines tall: the sixth line shows in part (clipped), the rest are not drawn.
    const long = await appearanceOf("pdfjs-annotation-choice-widget.pdf", "formulier1[0].#subform[0].Keuzelijst2[0]", ["Lorem"], true);
    expect([...long.content.matchAll(/\/ActualText \(([^)]*)\)/g)].map((match) => match[1])).toEqual(["Lorem", "Ipsum", "Dolor", "Sit", "Amet", "Consectetur"]);
    expect(long.positions.every(([, y]) => y < long.height)).toBe(true);
  });
});

describe("PDF form widgets a viewer hides or does not turn", () => {
  // bench:forms' three values not seen in a render are these widgets: the fill draws their value and
  // keeps the form's /F (Hidden 2, NoView 32, NoRotate 16), so the form's own scripts still decide.
  it.each([
    ["pdfjs-160F-2019.pdf", "X.minus1", 6],
    ["qpdf-manual-appearances.pdf", "Text Box 19", 36],
    ["qpdf-manual-appearances.pdf", "Text Box 21", 2],
    ["qpdf-manual-appearances.pdf", "Text Box 6", 20],
  ])("%s %s: draws the value and keeps /F %i", async (file, name, flags) => {
    const filled = await fillPdfForm(corpus(file), { fields: [{ name, value: "Filled" }] }, deps);
    const view = writerView(await PDF.load(filled));
    const widget = readForm(view, readPageTree(view)).fields.find((item) => item.name === name)!.widgets[0]!;
    expect((widget.dict.get("F") as unknown as { value: number }).value).toBe(flags);
    const { content } = await appearanceOf(file, name, "Filled");
    expect(content).toContain("/ActualText (Filled)");
  });
});
