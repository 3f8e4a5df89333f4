// PDF forms over the local server (issue 39): list, fill, flatten, sign with fields; the values
// read back with pdftotext and MuPDF, signatures judged by pyHanko and by Signet's verify.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject, PdfStream, PdfString } from "@libpdf/core";
import { repoRoot } from "../../infra/bundling.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { mutoolText, pdfText, qpdfFieldStream, renderPages } from "#test/helpers/pdf-tools.ts";
import { pyhankoValidate } from "#test/helpers/signature-checks.ts";

let api: LocalApi;
let key: string;

beforeAll(async () => {
  api = await startLocalApi("forms-server", { SIGNET_TABLE: "signet-forms-server" });
  key = await obtainKey(api, "forms");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const form = (file: string) => ({ base64: readFileSync(join(repoRoot, "test/fixtures/forms", file)).toString("base64") });
const post = (path: string, body: unknown) => api.postJson(path, body, key);
const PDF_PREFIX = "data:application/pdf;base64,";
const pdfOf = (json: Record<string, any>) => Buffer.from(String(json.document.base64).replace(PDF_PREFIX, ""), "base64");
const squeeze = (text: string) => text.replace(/\s+/g, "");

async function fill(body: Record<string, unknown>): Promise<Buffer> {
  const { status, json } = await post("/v1/annotate", body);
  expect(status, JSON.stringify(json)).toBe(200);
  expect(json.document.contentType).toBe("application/pdf");
  return pdfOf(json);
}

/** highlightRows counts the pixel rows of a 50 dpi gray render (US Letter) inside a rectangle in points that are mostly the list box highlight's gray. */
function highlightRows(pgm: Buffer, rect: [number, number, number, number]): number {
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString("latin1", 0, 40))!;
  const [width, height] = [Number(header[1]), Number(header[2])];
  const pixels = pgm.subarray(header[0].length);
  const scale = 50 / 72;
  const [x1, x2] = [Math.ceil(rect[0] * scale), Math.floor(rect[2] * scale)];
  let rows = 0;
  for (let y = Math.ceil(height - rect[3] * scale); y < height - rect[1] * scale; y++) {
    let count = 0;
    for (let x = x1; x < x2; x++) if (Math.abs(pixels[y * width + x]! - 183) <= 6) count++;
    if (count > (x2 - x1) / 2) rows++;
  }
  return rows;
}

describe("PDF forms over the local server", () => {
  it("lists a form's fields with their names, types, options and places", async () => {
    const { status, json } = await post("/v1/annotate/fields", { document: form("pdflib-sample_form.pdf") });
    expect(status).toBe(200);
    expect(json.form).toBe("acroform");
    expect(json.fields).toHaveLength(29);
    expect(json.fields).toContainEqual(
      expect.objectContaining({ name: "Sex", type: "radio", options: expect.arrayContaining([{ value: "FEMALE", label: "FEMALE" }]) }),
    );
    expect(json.fields.find((field: { name: string }) => field.name === "STATE").flags.maxLength).toBe(2);
  });

  it("lists a value held in a stream, and rich text, as plain text; a stream that would inflate beyond the cap as null", async () => {
    const corpus = "pdfbox-AcroFormsBasicFields.pdf";
    const listed = await post("/v1/annotate/fields", { document: form(corpus) });
    const value = (name: string) => listed.json.fields.find((field: { name: string }) => field.name === name)?.value;
    const stream = await qpdfFieldStream(join(repoRoot, "test/fixtures/forms", corpus), "LongRichTextField", "/V");
    expect(stream?.length).toBeGreaterThan(100_000);
    expect(value("LongRichTextField")).toBe(stream!.toString("latin1"));
    expect(value("RichTextField-Filled")).toBe("Fomatted Text");
    // An attacker's form: /V a small Flate stream of 8 MiB, and a field with only rich text.
    const doc = PDF.create();
    const page = doc.addPage({ width: 300, height: 300 });
    const field = (name: string, entries: Record<string, PdfObject>) =>
      doc.register(PdfDict.of({ FT: PdfName.of("Tx"), T: PdfString.fromString(name), Subtype: PdfName.of("Widget"), P: page.ref, ...entries }));
    const bomb = doc.register(PdfStream.fromDict({ Filter: PdfName.of("FlateDecode") }, deflateSync("A".repeat(8 * 1024 * 1024))));
    const fields = [field("bomb", { V: bomb }), field("rich", { RV: PdfString.fromString("<body><p>Rich <b>text</b> &amp; more</p></body>") })];
    doc.getCatalog().set("AcroForm", doc.register(PdfDict.of({ Fields: new PdfArray(fields) })));
    const attack = await post("/v1/annotate/fields", { document: { base64: Buffer.from(await doc.save()).toString("base64") } });
    expect(attack.status, JSON.stringify(attack.json).slice(0, 300)).toBe(200);
    expect(attack.json.fields.map((item: { name: string; value: unknown }) => [item.name, item.value])).toEqual([
      ["bomb", null],
      ["rich", "Rich text & more"],
    ]);
  });

  it("fills text, check box and radio fields with appearances pdftotext and MuPDF read, without NeedAppearances", async () => {
    const pdf = await fill({
      document: form("pdflib-sample_form.pdf"),
      fields: [
        { name: "Name_Last", value: "Lovelace" },
        { name: "Name_First", value: "Augusta Ada" },
        { name: "STATE", value: "NY" },
        { name: "PHD", value: true },
        { name: "Sex", value: "FEMALE" },
      ],
    });
    const text = await pdfText(pdf);
    for (const value of ["Lovelace", "Augusta Ada"]) expect(text).toContain(value);
    expect(await mutoolText(pdf)).toContain("Lovelace");
    expect(pdf.toString("latin1")).not.toMatch(/NeedAppearances\s+true/);
    const listed = await post("/v1/annotate/fields", { document: { base64: pdf.toString("base64") } });
    const byName = new Map(listed.json.fields.map((field: { name: string; value: unknown }) => [field.name, field.value]));
    expect([byName.get("Name_Last"), byName.get("PHD"), byName.get("Sex")]).toEqual(["Lovelace", "On", "FEMALE"]);
  });

  it("draws a list box as viewers do: its options from the top, the chosen one on the highlight, scrolled into view", async () => {
    // Eight options, five lines tall, "Elit" (the last) chosen: the view scrolls to show it, as pdf.js does.
    const name = "formulier1[0].#subform[0].Keuzelijst1[0]";
    const pdf = await fill({ document: form("pdfjs-annotation-choice-widget.pdf"), dropXfa: true, fields: [{ name, value: "Elit" }] });
    const [left, bottom, right, top] = [20.84, 614.84, 190.91, 684.99];
    const area = { x: left, y: 792 - top, width: right - left, height: top - bottom };
    expect((await pdfText(pdf, { first: 1, last: 1, area })).split(/\s+/).filter(Boolean)).toEqual(["Sit", "Amet", "Consectetur", "Adipiscing", "Elit"]);
    // Acrobat's highlight (0.6 0.75 0.85 rg, gray about 183 in a render) behind the last line only.
    const [page] = await renderPages(pdf, 1, 1);
    const middle = (bottom + top) / 2;
    expect(highlightRows(page!, [left, bottom, right, middle])).toBeGreaterThanOrEqual(5);
    expect(highlightRows(page!, [left, middle, right, top])).toBe(0);
  });

  it("draws Hebrew, Arabic and Chinese values that pdftotext reads back", async () => {
    const values = { firstName1: "דוד", lastName1: "محمد", dob1: "北京市" };
    const pdf = await fill({ document: form("pdfcpu-hebrew.pdf"), fields: Object.entries(values).map(([name, value]) => ({ name, value })) });
    const text = squeeze(await pdfText(pdf));
    for (const value of Object.values(values)) expect(text).toContain(value);
  });

  it("flattens: the values become page content and the fields leave the form", async () => {
    const pdf = await fill({ document: form("pdflib-sample_form.pdf"), fields: [{ name: "City", value: "Zanzibar" }], flatten: true });
    expect(await pdfText(pdf)).toContain("Zanzibar");
    const listed = await post("/v1/annotate/fields", { document: { base64: pdf.toString("base64") } });
    // Signature fields stay (flatten: true burns every other field).
    expect(listed.json.fields.map((field: { name: string; type: string }) => [field.name, field.type])).toEqual([["EMPLOYEE SIGNATURE", "signature"]]);
  });

  it("names every unknown field, refuses read-only fields, values not among the options, and dynamic XFA", async () => {
    const unknown = await post("/v1/annotate", {
      document: form("pdflib-sample_form.pdf"),
      fields: [
        { name: "Nope", value: "x" },
        { name: "Nada", value: "y" },
      ],
    });
    expect(unknown.status).toBe(422);
    expect(unknown.json.code).toBe("FIELD_NOT_FOUND");
    expect(unknown.json.details.map((detail: { issue: string }) => detail.issue)).toEqual(['no field named "Nope"', 'no field named "Nada"']);
    const readOnly = await post("/v1/annotate", { document: form("pdfcpu-arabic.pdf"), fields: [{ name: "firstName1", value: "x" }] });
    expect([readOnly.status, readOnly.json.code]).toEqual([422, "FIELD_READ_ONLY"]);
    const option = await post("/v1/annotate", { document: form("pdflib-sample_form.pdf"), fields: [{ name: "Sex", value: "OTHER" }] });
    expect([option.status, option.json.code]).toEqual([422, "INVALID_FIELD_VALUE"]);
    const tooLong = await post("/v1/annotate", { document: form("pdflib-sample_form.pdf"), fields: [{ name: "STATE", value: "NYC" }] });
    expect([tooLong.status, tooLong.json.code]).toEqual([422, "INVALID_FIELD_VALUE"]);
    const xfa = await post("/v1/annotate", { document: form("pdfjs-xfa_issue14315.pdf"), fields: [{ name: "a", value: "x" }] });
    expect([xfa.status, xfa.json.code]).toEqual([422, "XFA_FORM"]);
    const hybrid = await post("/v1/annotate", { document: form("pdflib-with_xfa_fields.pdf"), fields: [] });
    expect([hybrid.status, hybrid.json.code, hybrid.json.details]).toEqual([422, "XFA_FORM", [{ field: "dropXfa", issue: expect.any(String) }]]);
  });

  it("fills and signs in one call, then fills the signed form again: every signature stays valid in pyHanko and in Signet's verify", async () => {
    const signed = await post("/v1/sign", {
      // Text fields only: pyHanko 0.20's diff analysis stops with IndirectObjectExpected on any
      // update after a signature in a form holding a field whose /AP /N is a direct dictionary
      // (a check box merged with its widget), whatever the update (docs/performance.md).
      document: form("pdfbox-AlignmentTests.pdf"),
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-27T09:58:00Z" }],
      level: "B-B",
      fields: [{ name: "AlignLeft", value: "Lovelace" }],
    });
    expect(signed.status, JSON.stringify(signed.json)).toBe(200);
    const signedPdf = Buffer.from(signed.json.document.base64 as string, "base64");
    expect(await pdfText(signedPdf, { first: 1, last: 1 })).toContain("Lovelace");
    const refilled = await fill({ document: { base64: signedPdf.toString("base64") }, fields: [{ name: "AlignRight", value: "Marylebone" }] });
    expect(refilled.subarray(0, signedPdf.length).equals(signedPdf)).toBe(true);
    expect(await pdfText(refilled, { first: 1, last: 1 })).toContain("Marylebone");
    const verified = await post("/v1/verify", { document: { base64: refilled.toString("base64") } });
    expect(verified.json.valid, JSON.stringify(verified.json)).toBe(true);
    expect(verified.json.signatures.map((signature: { modificationLevel: string }) => signature.modificationLevel)).toEqual(["form_filling"]);
    const flatten = await post("/v1/annotate", { document: { base64: signedPdf.toString("base64") }, fields: [], flatten: true });
    expect([flatten.status, flatten.json.code]).toEqual([409, "WOULD_INVALIDATE_SIGNATURES"]);
    // pyHanko last: it runs synchronously and blocks the server's event loop (a request after it may meet a reset connection).
    const pyhanko = pyhankoValidate(refilled);
    expect(pyhanko.allHold, pyhanko.output).toBe(true);
    expect(pyhanko.signatures.map((signature) => signature.modificationLevel)).toEqual(["FORM_FILLING"]);
  }, 60_000);

  it("a fill after a signature keeps the widget's six-decimal numbers (libpdf wrote 5: /MK /BG 0.899994 became 0.89999, a change 'other')", async () => {
    // pdfjs-160F-2019.pdf: A.CLAIMP's widget has /MK << /BG [0.860001 0.899994 0.940002] >>.
    const signed = await post("/v1/sign", {
      document: form("pdfjs-160F-2019.pdf"),
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-27T09:58:00Z" }],
      level: "B-B",
    });
    expect(signed.status, JSON.stringify(signed.json)).toBe(200);
    const signedPdf = Buffer.from(signed.json.document.base64 as string, "base64");
    const filled = await fill({ document: { base64: signedPdf.toString("base64") }, fields: [{ name: "A.CLAIMP", value: "Z" }] });
    expect(filled.subarray(signedPdf.length).toString("latin1")).toContain("0.899994");
    const verified = await post("/v1/verify", { document: { base64: filled.toString("base64") } });
    expect(verified.json.valid, verified.json.reason).toBe(true);
    expect(verified.json.signatures.map((signature: { modificationLevel: string }) => signature.modificationLevel)).toEqual(["form_filling"]);
    const pyhanko = pyhankoValidate(filled);
    expect(pyhanko.allHold, pyhanko.output).toBe(true);
    expect(pyhanko.signatures.map((signature) => signature.modificationLevel)).toEqual(["FORM_FILLING"]);
  }, 120_000);

  it("a radio group after a signature: Signet's fill refuses it (409), another tool's choice is form filling in verify, a hidden button is not", async () => {
    // The group's buttons are widgets of their own (/Kids): a fill changes the field's /V and each
    // button's /AS. ISO 32000 calls that form filling and so does Signet's verify, but pyHanko 0.20.1
    // explains changes to dictionaries with /T only, so Signet's own fill refuses it after a signature.
    const signed = await post("/v1/sign", {
      document: form("pdflib-sample_form.pdf"),
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-27T09:58:00Z" }],
      level: "B-B",
    });
    expect(signed.status, JSON.stringify(signed.json)).toBe(200);
    const signedPdf = Buffer.from(signed.json.document.base64 as string, "base64");
    const refused = await post("/v1/annotate", { document: { base64: signedPdf.toString("base64") }, fields: [{ name: "Sex", value: "FEMALE" }] });
    expect([refused.status, refused.json.code], refused.json.message).toEqual([409, "WOULD_INVALIDATE_SIGNATURES"]);
    expect(refused.json.details).toEqual([{ field: "fields.Sex", issue: "its widgets are annotations of their own" }]);
    // Another tool's choice (Acrobat writes the same): /V and each button's /AS, nothing else.
    const other = await PDF.load(new Uint8Array(signedPdf));
    const group = other.getForm()?.getField("Sex");
    expect(group && "getWidgets" in group).toBe(true);
    if (group && "getWidgets" in group) {
      group.getDict().set("V", PdfName.of("FEMALE"));
      for (const widget of group.getWidgets()) widget.setAppearanceState(widget.getOnValue() === "FEMALE" ? "FEMALE" : "Off");
    }
    const chosen = Buffer.from(await other.save({ incremental: true }));
    const verified = await post("/v1/verify", { document: { base64: chosen.toString("base64") } });
    expect(verified.json.valid, JSON.stringify(verified.json)).toBe(true);
    expect(verified.json.signatures.map((signature: { modificationLevel: string }) => signature.modificationLevel)).toEqual(["form_filling"]);
    // The forger's variant: the same kind of update, but one button hidden (/F 2) instead of chosen.
    const pdf = await PDF.load(new Uint8Array(signedPdf));
    const sex = pdf.getForm()?.getField("Sex");
    const button = sex && "getWidgets" in sex ? sex.getWidgets()[0]?.dict : undefined;
    expect(button).toBeDefined();
    button!.set("F", PdfNumber.of(2));
    const hidden = Buffer.from(await pdf.save({ incremental: true }));
    const forged = await post("/v1/verify", { document: { base64: hidden.toString("base64") } });
    expect(forged.json.valid, JSON.stringify(forged.json)).toBe(false);
    expect(forged.json.signatures[0].changesPermitted).toBe(false);
  }, 60_000);
});
