import { beforeAll, describe, expect, it } from "vitest";
import { PDF, PdfArray, PdfBool, PdfDict, PdfName, PdfNumber, type PdfRef, type PdfStream, PdfString } from "@libpdf/core";
import { PDFDocument, StandardFonts } from "pdf-lib";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { verifySignatures } from "#domain/verification/signature-verifier.ts";
import type { VerifyReport } from "#domain/verification/verify-report.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { holdsInPyhanko, pyhankoValidate } from "#test/helpers/signature-checks.ts";

// Verify classes every incremental update after each signature as pyHanko's
// difference analysis does, and its verdict equals pyHanko's on each case built here.

let identity: SigningIdentity;
let base: Buffer;

/** formPdf is two pages with a text field "name" (classic xref table, so pyHanko keeps one too). */
async function formPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < 2; index++) doc.addPage([595, 842]).drawText(`Clause ${index + 1}`, { x: 60, y: 760, size: 20, font });
  doc.getForm().createTextField("name").addToPage(doc.getPage(0), { x: 60, y: 600, width: 200, height: 24 });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

const sign = (pdf: Buffer) => signPdf(pdf, { identity, signingTime: new Date("2026-11-22T10:00:00Z"), signerName: "Ada Lovelace", reason: "approval" });

beforeAll(async () => {
  identity = await generateIdentity({ keyType: "EC" });
  base = await formPdf();
}, 30_000);

/** update applies an edit with libpdf and appends it as an incremental update. */
async function update(pdf: Buffer, edit: (doc: PDF) => void | Promise<void>): Promise<Buffer> {
  const doc = await PDF.load(pdf);
  await edit(doc);
  const saved = await doc.save({ incremental: true });
  const out = Buffer.from(saved);
  expect(out.subarray(0, pdf.length).equals(pdf), "an incremental update").toBe(true);
  return out;
}

function firstPage(doc: PDF) {
  return doc.getPages()[0]!;
}

const edits: Record<string, (doc: PDF) => void | Promise<void>> = {
  "metadata only (document info)": (doc) => doc.setTitle("Renamed after signing"),
  "a new empty signature field": (doc) => {
    doc.getOrCreateForm().createSignatureField("Later");
  },
  "a form value change": (doc) => {
    // The value on the field, the viewer asked to redraw it (what a minimal form filler writes).
    const form = doc.getForm()!;
    form.getTextField("name")!.getDict().set("V", PdfString.fromString("Grace Hopper"));
    doc
      .getCatalog()
      .getDict("AcroForm", (ref: PdfRef) => doc.getObject(ref))!
      .set("NeedAppearances", PdfBool.of(true));
  },
  "a form value change with a redrawn widget (libpdf setValue)": (doc) => {
    // libpdf rewrites the appearance of the field's kid widget in place: pyHanko's rules cover
    // appearances on the field itself only, so both call this "other".
    doc.getForm()!.getTextField("name")!.setValue("Grace Hopper");
  },
  "an added annotation": (doc) => {
    const page = firstPage(doc);
    const note = doc.register(
      PdfDict.of({
        Type: PdfName.of("Annot"),
        Subtype: PdfName.of("Square"),
        Rect: new PdfArray([60, 60, 160, 160].map((value) => PdfNumber.of(value))),
        C: new PdfArray([PdfNumber.of(1), PdfNumber.of(0), PdfNumber.of(0)]),
      }),
    );
    const annots = page.dict.getArray("Annots", (ref: PdfRef) => doc.getObject(ref));
    if (annots) annots.push(note);
    else page.dict.set("Annots", new PdfArray([note]));
  },
  "an added page": (doc) => {
    doc.addPage();
  },
  "a replaced content stream": (doc) => {
    const contents = firstPage(doc).dict.get("Contents");
    const stream = doc.getObject((contents instanceof PdfArray ? contents.at(0) : contents) as PdfRef) as PdfStream;
    stream.delete("Filter");
    stream.setData(new TextEncoder().encode("BT /F1 30 Tf 60 700 Td (Pay 1,000,000 to Mallory) Tj ET"));
  },
  "a replaced font": (doc) => {
    const resolve = (ref: PdfRef) => doc.getObject(ref);
    const fonts = firstPage(doc).dict.getDict("Resources", resolve)!.getDict("Font", resolve)!;
    const name = [...fonts.keys()][0]!;
    const font = doc.getObject(fonts.get(name) as PdfRef) as PdfDict;
    font.set("BaseFont", PdfName.of("Courier"));
  },
  "a changed /Root entry": (doc) => {
    doc.getCatalog().set("PageMode", PdfName.of("FullScreen"));
  },
};

const pyhankoLevel: Record<string, string> = { NONE: "none", LTA_UPDATES: "lta", FORM_FILLING: "form_filling", ANNOTATIONS: "annotations", OTHER: "other" };

async function verify(pdf: Buffer): Promise<VerifyReport> {
  return verifySignatures(openPdfFile(pdf), { anchors: [] });
}

/** expectSameVerdict compares verify with pyHanko signature by signature: level and verdict (trust aside). */
async function expectSameVerdict(pdf: Buffer): Promise<VerifyReport> {
  const ours = await verify(pdf);
  const theirs = pyhankoValidate(pdf);
  expect(ours.signatures.length, theirs.output).toBe(theirs.signatures.length);
  ours.signatures.forEach((signature, index) => {
    const other = theirs.signatures[index]!;
    const context = `${signature.field}: ours ${JSON.stringify(signature)} ${ours.reason}\npyHanko ${theirs.output}`;
    // pyHanko 0.20.1 has no rule for annotations and calls them "other" (see README).
    const level = signature.modificationLevel === "annotations" ? "other" : signature.modificationLevel;
    expect(level, context).toBe(pyhankoLevel[other.modificationLevel ?? "OTHER"]);
    expect(signature.integrity === "ok" && signature.changesPermitted, context).toBe(holdsInPyhanko(other));
  });
  expect(ours.valid, `${ours.reason}\n${theirs.output}`).toBe(theirs.signatures.every(holdsInPyhanko));
  return ours;
}

describe("verify's difference analysis agrees with pyHanko", () => {
  const expected: Record<string, [string, boolean]> = {
    "metadata only (document info)": ["lta", true],
    "a new empty signature field": ["lta", true],
    "a form value change": ["form_filling", true],
    "a form value change with a redrawn widget (libpdf setValue)": ["other", false],
    "an added annotation": ["other", false],
    "an added page": ["other", false],
    "a replaced content stream": ["other", false],
    "a replaced font": ["other", false],
    "a changed /Root entry": ["other", false],
  };

  it.each(Object.keys(edits))("after an approval signature: %s", async (name) => {
    const signed = await sign(base);
    const changed = await update(signed, edits[name]!);
    const report = await expectSameVerdict(changed);
    const [level, valid] = expected[name]!;
    // pyHanko 0.20.1 has no rule for annotations (it calls them "other"); verify names them, and
    // without a certification that permits them (P=3) they make the signature invalid too.
    expect(report.signatures[0]!.modificationLevel).toBe(name === "an added annotation" ? "annotations" : level);
    expect(report.valid).toBe(valid);
    if (!valid) expect(report.reason).toMatch(/changed after signature .* beyond what it permits/);
  });

  it("on an untouched signature, a signature on top of it, and three in turn", async () => {
    const once = await sign(base);
    expect((await expectSameVerdict(once)).signatures[0]!.modificationLevel).toBe("none");
    const thrice = await sign(await sign(once));
    const report = await expectSameVerdict(thrice);
    expect(report.signatures.map((signature) => signature.modificationLevel)).toEqual(["form_filling", "form_filling", "none"]);
    expect(report.valid).toBe(true);
  });

  it.each([1, 2, 3] as const)("after a certification with DocMDP P=%i: form filling, and another signature", async (p) => {
    const certified = signWithPyhanko(base, { certify: p });
    const filled = await update(certified, edits["a form value change"]!);
    const report = await expectSameVerdict(filled);
    expect(report.signatures[0]).toMatchObject({ docMdpPermission: p, modificationLevel: "form_filling", changesPermitted: p >= 2 });
    if (p >= 2) await expectSameVerdict(await sign(filled));
  });

  it.each([2, 3] as const)("after a certification with DocMDP P=%i: an added annotation", async (p) => {
    const certified = signWithPyhanko(base, { certify: p });
    const annotated = await update(certified, edits["an added annotation"]!);
    const report = await verify(annotated);
    expect(report.signatures[0]).toMatchObject({ docMdpPermission: p, modificationLevel: "annotations", changesPermitted: p === 3 });
    expect(report.valid).toBe(p === 3);
    // pyHanko 0.20.1 has no annotation rule and calls it "other" even under P=3; with P=2 both refuse.
    const theirs = pyhankoValidate(annotated);
    expect(theirs.signatures[0]!.modificationLevel).toBe("OTHER");
  });

  it("reads cross-reference streams too (a PDF saved with object streams)", async () => {
    const streamed = await makePdf(2);
    expect(streamed.toString("latin1")).toContain("/XRef");
    const twice = await sign(await sign(streamed));
    expect((await expectSameVerdict(twice)).signatures.map((signature) => signature.modificationLevel)).toEqual(["form_filling", "none"]);
    const paged = await update(twice, edits["an added page"]!);
    const report = await expectSameVerdict(paged);
    expect(report.signatures.map((signature) => signature.modificationLevel)).toEqual(["other", "other"]);
    expect(report.valid).toBe(false);
  });

  it("calls an update it cannot follow 'other', and does not fail the request", async () => {
    const signed = await sign(base);
    const bogus = Buffer.concat([signed, Buffer.from("\n9999 0 obj\n<< /Junk true >>\nendobj\nstartxref\n99999999\n%%EOF\n", "latin1")]);
    const report = await verify(bogus);
    expect(report.signatures[0]).toMatchObject({ integrity: "ok", modificationLevel: "other", changesPermitted: false });
    expect(report.valid).toBe(false);
    expect(report.reason).toMatch(/cross-reference/);
  });

  it("reports the signer of a signature whose byte range gap is not exactly /Contents", async () => {
    const signed = await sign(base);
    const text = signed.toString("latin1");
    const at = text.lastIndexOf("/ByteRange [");
    const range = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\s*\]/.exec(text.slice(at))!;
    const shifted = `/ByteRange [${range[1]} ${Number(range[2]) + 1} ${range[3]} ${Number(range[4])}]`.padEnd(range[0].length, " ");
    const broken = Buffer.from(signed);
    broken.write(shifted, at, "latin1");
    const report = await verify(broken);
    expect(report.signatures[0]).toMatchObject({ integrity: "broken", fingerprint: identity.certificate.fingerprint256 });
    expect(report.signatures[0]!.certificateSubject).toContain("Signet");
  });
});
