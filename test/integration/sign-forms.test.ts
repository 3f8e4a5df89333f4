import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PDF, PdfArray, PdfBool, PdfDict, PdfName, PdfNumber, type PdfRef, PdfString } from "@libpdf/core";
import { obtainKey, postOnOwnConnection, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { dataUri, makeGifHeader, makeJpegHeader, makePng, makeSvg } from "#test/helpers/annotate-images.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";
import { pdfImages, pdfText, renderPages } from "#test/helpers/pdf-tools.ts";
import { holdsInPyhanko, pyhankoValidate, type PyhankoSignature } from "#test/helpers/signature-checks.ts";

// Certification signatures (certify, DocMDP) and visible signatures (signatureField) through the
// local server, each result judged by pyHanko and by /v1/verify, which must agree.

let api: LocalApi;
let key: string;
const form = (name: string) => readFileSync(new URL(`../fixtures/forms/${name}`, import.meta.url));
// pyHanko's own test form: an empty signature field Sig1 and the text fields TextInput.TextField1 and 2.
const minimal = form("pyhanko-minimal-with-textfield-group.pdf");

beforeAll(async () => {
  api = await startLocalApi("sign-forms", { SIGNET_TABLE: "signet-sign-forms", SIGNET_CONVERSION_MODE: "oneshot" });
  key = await obtainKey(api, "sign-forms");
}, 90_000);

afterAll(async () => {
  await api?.close();
});

/** post sends a JSON body on a connection of its own (pyHanko runs synchronously in this process). */
function post(path: string, body: unknown, auth = true): Promise<{ status: number; json: Record<string, any> }> {
  return postOnOwnConnection(`${api.url}${path}`, body, auth ? key : undefined);
}

const signBody = (pdf: Buffer, extra: Record<string, unknown> = {}, name = "Ada Lovelace") => ({
  document: { base64: pdf.toString("base64") },
  signer: { name, email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-27T09:58:00Z" }],
  ...extra,
});

/** sign posts to /v1/sign and returns the signed PDF (the answer must be 200). */
async function sign(pdf: Buffer, extra: Record<string, unknown> = {}, name?: string): Promise<Buffer> {
  const { status, json } = await post("/v1/sign", signBody(pdf, extra, name));
  expect(status, JSON.stringify(json)).toBe(200);
  return Buffer.from(json.document.base64 as string, "base64");
}

/** refusal posts to /v1/sign and returns the error answer (status and body). */
async function refusal(pdf: Buffer, extra: Record<string, unknown>): Promise<{ status: number; json: Record<string, any> }> {
  return post("/v1/sign", signBody(pdf, extra));
}

interface VerifiedSignature {
  field: string;
  visible: boolean;
  integrity: string;
  changesPermitted: boolean;
  docMdpPermission?: number;
  modificationLevel: string;
}

/**
 * judged runs /v1/verify and pyHanko on a PDF and checks that they agree on every signature
 * (matched by field name): intact and only permitted changes after it, and which one certifies
 * with which P. Returns both, by field name.
 */
async function judged(pdf: Buffer): Promise<{ ours: Map<string, VerifiedSignature>; theirs: Map<string, PyhankoSignature>; valid: boolean }> {
  const { status, json } = await post("/v1/verify", { document: { base64: pdf.toString("base64") } }, false);
  expect(status).toBe(200);
  const ours = new Map((json.signatures as VerifiedSignature[]).map((signature) => [signature.field, signature]));
  const pyhanko = pyhankoValidate(pdf);
  const theirs = new Map(pyhanko.signatures.map((signature) => [signature.field, signature]));
  expect([...ours.keys()].sort(), pyhanko.output).toEqual([...theirs.keys()].sort());
  for (const [field, signature] of ours) {
    const other = theirs.get(field)!;
    const context = `${field}: ours ${JSON.stringify(signature)}\npyHanko ${pyhanko.output}`;
    expect(signature.docMdpPermission ?? null, context).toBe(other.certifies ? other.docmdp : null);
    if (signature.modificationLevel !== "annotations") {
      expect(signature.integrity === "ok" && signature.changesPermitted, context).toBe(holdsInPyhanko(other));
    }
  }
  return { ours, theirs, valid: json.valid as boolean };
}

/** update appends an incremental update made by libpdf (another writer than Signet's). */
async function update(pdf: Buffer, edit: (doc: PDF) => void): Promise<Buffer> {
  const doc = await PDF.load(pdf);
  edit(doc);
  const out = Buffer.from(await doc.save({ incremental: true }));
  expect(out.subarray(0, pdf.length).equals(pdf)).toBe(true);
  return out;
}

/** fillText sets a text field's value as a minimal form filler does (the value, and NeedAppearances). */
const fillText = (name: string, value: string) => (doc: PDF) => {
  doc.getForm()!.getTextField(name)!.getDict().set("V", PdfString.fromString(value));
  doc
    .getCatalog()
    .getDict("AcroForm", (ref: PdfRef) => doc.getObject(ref))!
    .set("NeedAppearances", PdfBool.of(true));
};

/** addSquare adds a square annotation to page 1 (a comment). */
const addSquare = (doc: PDF) => {
  const page = doc.getPages()[0]!;
  const note = doc.register(
    PdfDict.of({
      Type: PdfName.of("Annot"),
      Subtype: PdfName.of("Square"),
      Rect: new PdfArray([200, 200, 260, 260].map((value) => PdfNumber.of(value))),
      C: new PdfArray([PdfNumber.of(1), PdfNumber.of(0), PdfNumber.of(0)]),
    }),
  );
  const annots = page.dict.getArray("Annots", (ref: PdfRef) => doc.getObject(ref));
  if (annots) annots.push(note);
  else page.dict.set("Annots", new PdfArray([note]));
};

describe("certify: a certification signature with DocMDP", () => {
  const certified = new Map<number, Buffer>();
  const certifiedDoc = async (p: 1 | 2 | 3) => {
    if (!certified.has(p)) certified.set(p, await sign(minimal, { certify: { permissions: p } }));
    return certified.get(p)!;
  };

  it.each([1, 2, 3] as const)("P=%i: pyHanko and verify both see a certification with that permission", async (p) => {
    const { ours, theirs, valid } = await judged(await certifiedDoc(p));
    const [signature] = [...ours.values()];
    expect(signature).toMatchObject({ docMdpPermission: p, integrity: "ok", changesPermitted: true });
    expect([...theirs.values()][0]).toMatchObject({ certifies: true, docmdp: p, intact: true, valid: true });
    expect(valid).toBe(true);
    // The certificate page says so, with the permission in words (pdftotext reads it back).
    const page = (await pdfText(await certifiedDoc(p))).replace(/\s+/g, " ");
    expect(page).toContain("This signature certifies the document (a certification signature, DocMDP)");
    expect(page).toContain(`Permitted changes (P=${p})`);
    expect(page).toContain(["no changes", "filling in form fields and adding signatures", "adding, changing or deleting annotations"][p - 1]);
  });

  it("P=2: a form fill in an incremental update and a second approval signature keep it valid in both", async () => {
    const filled = await update(await certifiedDoc(2), fillText("TextInput.TextField1", "Grace Hopper"));
    const afterFill = await judged(filled);
    expect(afterFill.valid).toBe(true);
    expect([...afterFill.ours.values()][0]).toMatchObject({ modificationLevel: "form_filling", changesPermitted: true });
    const second = await sign(filled, {}, "Grace Hopper");
    const both = await judged(second);
    expect(both.valid).toBe(true);
    expect([...both.theirs.values()].every(holdsInPyhanko)).toBe(true);
    expect(both.ours.size).toBe(2);
  });

  it("P=2: a second signer signs visibly into the empty field Sig1; both keep the certification valid", async () => {
    const second = await sign(await certifiedDoc(2), { signatureField: { name: "Sig1" } }, "Grace Hopper");
    const { ours, theirs, valid } = await judged(second);
    expect(valid).toBe(true);
    expect(ours.get("Sig1")).toMatchObject({ visible: true, integrity: "ok" });
    expect(theirs.get("Sig1")).toMatchObject({ intact: true, valid: true, certifies: false });
  });

  it("P=3: an added annotation is permitted by verify; pyHanko 0.20.1 has no annotation rule and calls it other", async () => {
    const annotated = await update(await certifiedDoc(3), addSquare);
    const { ours, theirs, valid } = await judged(annotated);
    expect([...ours.values()][0]).toMatchObject({ docMdpPermission: 3, modificationLevel: "annotations", changesPermitted: true });
    expect(valid).toBe(true);
    // The one documented difference (docs/api.md, "Verify"): pyHanko 0.20.1 classes any annotation "other".
    expect([...theirs.values()][0]!.modificationLevel).toBe("OTHER");
  });

  it("P=2 + an annotation, and P=1 + a second signature, are flagged by both", async () => {
    const annotated = await judged(await update(await certifiedDoc(2), addSquare));
    expect(annotated.valid).toBe(false);
    expect([...annotated.ours.values()][0]).toMatchObject({ modificationLevel: "annotations", changesPermitted: false });
    // pyHanko itself refuses to sign a P=1 document; a careless signer does not.
    const countersigned = signWithPyhanko(await certifiedDoc(1), { ignoreDocMdp: true });
    const both = await judged(countersigned);
    expect(both.valid).toBe(false);
    const certification = [...both.ours.values()].find((signature) => signature.docMdpPermission === 1)!;
    expect(certification).toMatchObject({ integrity: "ok", changesPermitted: false });
  });

  it("refuses to sign a P=1 document (422 INVALID_DOCUMENT) and to certify a signed one (422 CERTIFICATION_NOT_FIRST)", async () => {
    const locked = await refusal(await certifiedDoc(1), {});
    expect(locked.status).toBe(422);
    expect(locked.json.code).toBe("INVALID_DOCUMENT");
    const again = await refusal(await certifiedDoc(2), { certify: { permissions: 2 } });
    expect(again.status).toBe(422);
    expect(again.json).toMatchObject({ code: "CERTIFICATION_NOT_FIRST", details: [{ field: "certify" }] });
    const signedByOther = await refusal(form("pyhanko-minimal-two-fields-signed-twice.pdf"), { certify: { permissions: 3 } });
    expect(signedByOther.json.code).toBe("CERTIFICATION_NOT_FIRST");
  });
});

/** twoWidgetSignatureField is a two-page PDF with one empty signature field "Both" shown by a widget on each page (300 x 144 pt). */
async function twoWidgetSignatureField(rects: Array<[number, number, number, number]>): Promise<Buffer> {
  const doc = PDF.create();
  const pages = rects.map(() => doc.addPage({ width: 300, height: 144 }));
  const fieldRef = doc.register(PdfDict.of({ FT: PdfName.of("Sig"), T: PdfString.fromString("Both") }));
  const widgets = rects.map((rect, index) => {
    const widget = doc.register(
      PdfDict.of({
        Type: PdfName.of("Annot"),
        Subtype: PdfName.of("Widget"),
        Rect: new PdfArray(rect.map((value) => PdfNumber.of(value))),
        F: PdfNumber.of(4),
        P: pages[index]!.ref,
        Parent: fieldRef,
      }),
    );
    pages[index]!.dict.set("Annots", new PdfArray([widget]));
    return widget;
  });
  (doc.getObject(fieldRef) as PdfDict).set("Kids", new PdfArray(widgets));
  doc.getCatalog().set("AcroForm", doc.register(PdfDict.of({ Fields: new PdfArray([fieldRef]) })));
  return Buffer.from(await doc.save());
}

/** inkIn counts the dark pixels of a 50 dpi gray render inside a rectangle given in points (page height in points). */
function inkIn(pgm: Buffer, rect: [number, number, number, number]): number {
  const header = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.toString("latin1", 0, 40))!;
  const [width, height] = [Number(header[1]), Number(header[2])];
  const pixels = pgm.subarray(header[0].length);
  const scale = 50 / 72;
  let dark = 0;
  for (let y = Math.floor(height - rect[3] * scale); y < height - rect[1] * scale; y++) {
    for (let x = Math.floor(rect[0] * scale); x < rect[2] * scale; x++) if (pixels[y * width + x]! < 128) dark++;
  }
  return dark;
}

const plain = (text: string) => text.replace(/[\u200e\u200f\u202a-\u202e\u2066-\u2069\s]/g, "");

describe("signatureField: a visible signature", () => {
  it("certifying in the empty field of a corpus form (docs/api.md's example): drawn, extractable, valid in pyHanko; a countersignature keeps it", async () => {
    const input = form("pdflib-sample_form.pdf");
    const [before] = await renderPages(input, 1, 1);
    const field = { name: "EMPLOYEE SIGNATURE", reason: "Hired", location: "Berlin" };
    const signed = await sign(input, { certify: { permissions: 2 }, signatureField: field }, "Grace Hopper");
    const [after] = await renderPages(signed, 1, 1);
    const widget: [number, number, number, number] = [338.6, 83.5, 579, 102.2];
    expect(inkIn(after!, widget)).toBeGreaterThan(inkIn(before!, widget) + 20);
    const text = await pdfText(signed, { first: 1, last: 1 });
    expect(text).toContain("Grace Hopper");
    expect(text).toContain("Reason: Hired");
    const { ours, valid } = await judged(signed);
    expect(valid).toBe(true);
    expect(ours.get("EMPLOYEE SIGNATURE")).toMatchObject({ visible: true, integrity: "ok", docMdpPermission: 2 });
    // pyHanko 0.20.1 gives no verdict on later updates of this certified form (IndirectObjectExpected
    // on its check boxes' appearance state dictionaries): verify alone judges the countersignature.
    const countersigned = await sign(signed, {}, "Ada Lovelace");
    const { json } = await post("/v1/verify", { document: { base64: countersigned.toString("base64") } }, false);
    expect(json.valid).toBe(true);
    expect(json.signatures.map((signature: VerifiedSignature) => [signature.field, signature.visible, signature.docMdpPermission ?? null])).toEqual([
      ["EMPLOYEE SIGNATURE", true, 2],
      ["Signet_1", false, null],
    ]);
  });

  it("in a new field with an Arabic name, then a CJK name in the form's field Sig1: both render and extract, both valid", async () => {
    // The page is 300 x 144 pt: the new field goes over the text fields' row.
    const rect: [number, number, number, number] = [10, 74, 290, 134];
    const [blank] = await renderPages(minimal, 1, 1);
    const arabic = "ليلى أحمد";
    const cjk = "山田 花子";
    const first = await sign(minimal, { signatureField: { name: "Witness", page: 1, rect } }, arabic);
    const second = await sign(first, { signatureField: { name: "Sig1" } }, cjk);
    const [page] = await renderPages(second, 1, 1);
    expect(inkIn(page!, rect)).toBeGreaterThan(inkIn(blank!, rect) + 50);
    expect(inkIn(page!, [10, 10, 290, 70])).toBeGreaterThan(inkIn(blank!, [10, 10, 290, 70]) + 50);
    const text = plain(await pdfText(second, { first: 1, last: 1 }));
    expect(text).toContain(plain(arabic));
    expect(text).toContain(plain(cjk));
    const { ours, valid } = await judged(second);
    expect(valid).toBe(true);
    expect(ours.get("Witness")).toMatchObject({ visible: true, integrity: "ok", changesPermitted: true });
    expect(ours.get("Sig1")).toMatchObject({ visible: true, integrity: "ok" });
  });

  it("draws a picture (PNG; an SVG arrives as PNG) left of the text; a GIF and an oversized picture are refused as annotate refuses them", async () => {
    const rect: [number, number, number, number] = [10, 74, 290, 134];
    const [blank] = await renderPages(minimal, 1, 1);
    const png = await sign(minimal, { signatureField: { page: 1, rect, image: dataUri(makePng(200, 100, [20, 20, 20])) } });
    expect((await pdfImages(png)).map((image) => [image.width, image.height])).toContainEqual([200, 100]);
    const [page] = await renderPages(png, 1, 1);
    // The picture fills the left part of the box (at most 40% of its width): dark pixels there.
    const left: [number, number, number, number] = [14, 80, 100, 128];
    expect(inkIn(page!, left)).toBeGreaterThan(inkIn(blank!, left) + 100);
    const svg = await sign(minimal, { signatureField: { name: "Sig1", image: `data:image/svg+xml;base64,${Buffer.from(makeSvg()).toString("base64")}` } });
    expect((await judged(svg)).valid).toBe(true);
    expect((await pdfImages(svg)).length).toBeGreaterThan(0);
    const gif = await refusal(minimal, { signatureField: { name: "Sig1", image: dataUri(makeGifHeader(10, 10), "image/gif") } });
    expect(gif.json).toMatchObject({ code: "INVALID_IMAGE", details: [{ field: "signatureField.image" }] });
    const huge = await refusal(minimal, { signatureField: { name: "Sig1", image: dataUri(makeJpegHeader(60000, 60000), "image/jpeg") } });
    expect([huge.status, huge.json.code]).toEqual([413, "IMAGE_TOO_LARGE"]);
  });

  it("draws every widget of a field shown in two places, each at its own size: both render and extract, valid in both", async () => {
    const rects: Array<[number, number, number, number]> = [
      [20, 20, 280, 110],
      [150, 60, 290, 130],
    ];
    const input = await twoWidgetSignatureField(rects);
    const blank = await renderPages(input, 1, 2);
    const signed = await sign(input, { signatureField: { name: "Both" } }, "Grace Hopper");
    const pages = await renderPages(signed, 1, 2);
    for (const [index, rect] of rects.entries()) expect(inkIn(pages[index]!, rect), `widget ${index + 1}`).toBeGreaterThan(inkIn(blank[index]!, rect) + 50);
    for (const page of [1, 2]) expect(await pdfText(signed, { first: page, last: page })).toContain("Grace Hopper");
    const doc = await PDF.load(signed);
    const field = doc.getForm()!.getField("Both")!;
    const boxes = field.getWidgets().map((widget) => {
      const normal = doc.getObject((widget.dict.get("AP") as PdfDict).get("N") as PdfRef) as PdfDict;
      return (normal.get("BBox") as PdfArray).toArray().map((value) => Math.round((value as PdfNumber).value));
    });
    expect(boxes).toEqual(rects.map(([x1, y1, x2, y2]) => [0, 0, x2 - x1, y2 - y1]));
    const { ours, theirs, valid } = await judged(signed);
    expect(valid).toBe(true);
    expect(ours.get("Both")).toMatchObject({ visible: true, integrity: "ok", changesPermitted: true });
    expect(theirs.get("Both")).toMatchObject({ intact: true, valid: true });
  });

  it.each([
    [{ name: "Nope" }, "FIELD_NOT_FOUND", "signatureField.name"],
    [{ name: "TextInput.TextField1" }, "FIELD_TYPE_MISMATCH", "signatureField.name"],
    [{ page: 2, rect: [10, 10, 100, 50] }, "FIELD_PLACEMENT", "signatureField.page"],
    [{ page: 1, rect: [10, 10, 5000, 50] }, "FIELD_PLACEMENT", "signatureField.rect"],
    [{ page: 1, rect: [10, 100, 100, 150] }, "FIELD_PLACEMENT", "signatureField.rect"],
    [{ page: 1, rect: [10, 10, 100, 50], name: "Sig1" }, "FIELD_PLACEMENT", "signatureField.name"],
    [{ rect: [10, 10, 100, 50] }, "VALIDATION_ERROR", "signatureField"],
  ])("%j is %s", async (signatureField, code, field) => {
    const { status, json } = await refusal(minimal, { signatureField });
    expect(status, JSON.stringify(json)).toBe(code === "VALIDATION_ERROR" ? 400 : 422);
    expect(json.code).toBe(code);
    expect(json.details[0].field).toBe(field);
  });

  it("refuses a field already signed, and a new visible field on a certified document", async () => {
    const signed = await sign(minimal, { signatureField: { name: "Sig1" } });
    const twice = await refusal(signed, { signatureField: { name: "Sig1" } });
    expect(twice.json).toMatchObject({ code: "FIELD_ALREADY_SIGNED", details: [{ field: "signatureField.name" }] });
    const certified = await sign(minimal, { certify: { permissions: 2 } });
    const placed = await refusal(certified, { signatureField: { page: 1, rect: [10, 74, 290, 134] } });
    expect(placed.json).toMatchObject({ code: "FIELD_PLACEMENT", details: [{ field: "signatureField.page" }] });
  });
});

describe("a form whose check boxes are merged with their widget and hold their states directly (issue 39)", () => {
  it("signed, then filled with /v1/annotate: pyHanko 0.20 gives a verdict on a text fill (form filling, as /v1/verify); ticking a check box is refused (409)", async () => {
    // pdflib-sample_form.pdf: check boxes merged with their widget, /AP << /N << /On 41 0 R /Off 40 0 R >> >>;
    // pyHanko 0.20.1 raised IndirectObjectExpected on any update after a signature until sign split them.
    const original = form("pdflib-sample_form.pdf");
    const signed = await sign(original, { level: "B-B" });
    const listed = async (pdf: Buffer) => (await post("/v1/annotate/fields", { document: { base64: pdf.toString("base64") } })).json.fields;
    // The same fields, names, types, values and places, plus Signet's signature field.
    expect((await listed(signed)).filter((field: { name: string }) => !/^Signet_\d+$/.test(field.name))).toEqual(await listed(original));
    const fill = async (pdf: Buffer, fields: unknown[]) => {
      const { status, json } = await post("/v1/annotate", { document: { base64: pdf.toString("base64") }, fields });
      expect(status, JSON.stringify(json)).toBe(200);
      const out = Buffer.from(String(json.document.base64).replace(/^data:[^,]*,/, ""), "base64");
      expect(out.subarray(0, pdf.length).equals(pdf)).toBe(true);
      return out;
    };
    const text = await fill(signed, [{ name: "Name_Last", value: "Lovelace" }]);
    const { ours, theirs, valid } = await judged(text);
    expect(valid).toBe(true);
    expect([...ours.values()].map((signature) => signature.modificationLevel)).toEqual(["form_filling"]);
    expect([...theirs.values()][0]).toMatchObject({ intact: true, valid: true, modificationLevel: "FORM_FILLING" });
    // Ticking a check box would switch its widget's /AS; sign split the box from its widget, and
    // pyHanko 0.20.1 explains no change to a widget that is an object of its own (it lists only
    // dictionaries with /T): "other". So Signet's fill refuses it after a signature, naming sign's fields.
    const ticked = await post("/v1/annotate", { document: { base64: text.toString("base64") }, fields: [{ name: "PHD", value: true }] });
    expect([ticked.status, ticked.json.code], ticked.json.message).toEqual([409, "WOULD_INVALIDATE_SIGNATURES"]);
    expect(ticked.json.details).toEqual([{ field: "fields.PHD", issue: "its widgets are annotations of their own" }]);
    expect(ticked.json.message).toContain("POST /v1/sign takes the same fields");
  }, 90_000);
});
