import { describe, expect, it } from "vitest";
import { readForm } from "#domain/pdf/acroform.ts";
import { readCertification } from "#domain/pdf/docmdp.ts";
import { PdfFile } from "#domain/pdf/pdf-file.ts";
import { appendUpdate, contractPdf, inspect } from "#test/helpers/pdf-attacks/revisions.ts";

// The PDF model (issue 37): one bounded parse, a view per revision, and the readers that take a
// view. The files are made by libpdf and changed by hand-written updates.

describe("PdfFile", () => {
  it("knows its revisions, startxref, page count and form from one parse", async () => {
    const bytes = await contractPdf();
    const file = new PdfFile(bytes);
    expect(file.revisions).toHaveLength(1);
    expect(file.startxref).toBe(Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(bytes.toString("latin1"))![1]));
    expect([file.encrypted, file.hybrid, file.linearized, file.problems]).toEqual([false, false, false, []]);
    expect(file.pageCount).toBe(1);
    const form = readForm(file.latest, file.pageTree);
    expect(form.kind).toBe("acroform");
    expect(form.fields).toHaveLength(1);
    const [field] = form.fields;
    expect(field).toMatchObject({ name: "name", type: "text", signed: false, flags: { readOnly: false, multiline: false } });
    expect(field!.widgets).toHaveLength(1);
    expect(field!.widgets[0]).toMatchObject({ page: 0, visible: true });
    // libpdf widens the box by half its border width.
    expect(field!.widgets[0]!.rect).toEqual([59.5, 499.5, 260.5, 524.5]);
    expect(readCertification(file.latest)).toBeUndefined();
  });

  it("keeps each revision's view: an update that renames the field leaves revision 0 as it was", async () => {
    const t = await inspect(await contractPdf());
    const field = readForm(new PdfFile(t.bytes).latest).fields[0]!;
    const body = `<< /FT /Tx /T (renamed) /V (Ada) /Ff 4097 /MaxLen 20 /Rect [60 500 260 524] /Subtype /Widget /P ${t.page.objectNumber} 0 R >>`;
    const file = new PdfFile(appendUpdate(t, [{ number: field.ref!.objectNumber, body }]));
    expect(file.revisions).toHaveLength(2);
    expect(readForm(file.view(0)).fields.map((item) => item.name)).toEqual(["name"]);
    expect(readForm(file.latest).fields[0]).toMatchObject({
      name: "renamed",
      value: "Ada",
      maxLength: 20,
      flags: { readOnly: true, multiline: true },
    });
  });

  it("reads a hybrid update as hybrid, and a field tree that loops once", async () => {
    const t = await inspect(await contractPdf());
    const field = readForm(new PdfFile(t.bytes).latest).fields[0]!;
    const number = field.ref!.objectNumber;
    // The field lists itself as its kid: a reader that follows /Kids blindly never ends.
    const looped = appendUpdate(t, [{ number, body: `<< /FT /Tx /T (loop) /Kids [${number} 0 R] >>` }], { xref: "hybrid", hybridEntries: {} });
    const file = new PdfFile(looped);
    expect(file.hybrid).toBe(true);
    expect(readForm(file.latest).nodes.map((node) => node.name)).toEqual(["loop"]);
  });
});
