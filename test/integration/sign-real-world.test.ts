import { beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { PDF, type PdfDict } from "@libpdf/core";
import { AUDIT_RECORD_KEY, signPdf } from "#domain/signing/pades-signer.ts";
import { signDocumentWithNotices, type SignDependencies } from "#domain/signing/sign-document.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { mutoolPageCount, mutoolText, pdfPageCount, pdfsig, pdfText, qpdfCheck, qpdfPageCount } from "#test/helpers/pdf-tools.ts";
import * as cases from "#test/helpers/real-world-pdfs.ts";
import { runPyhanko } from "#test/helpers/pyhanko.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { scratchDir } from "#test/helpers/scratch.ts";
import { pyhankoValidate } from "#test/helpers/signature-checks.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

// PDFs with the structures real-world writers produce, generated in
// test/helpers/real-world-pdfs.ts. Each signed output is checked by the readers themselves: qpdf
// --check, the page count of poppler (pdfinfo) and MuPDF (mutool), the pages' text, and strict pyHanko.

let identity: SigningIdentity;

beforeAll(async () => {
  identity = await generateIdentity();
}, 30_000);

const deps: () => SignDependencies = () => ({
  fetcher: { fetch: () => Promise.reject(new Error("no fetch")) },
  converter: { convert: () => Promise.reject(new Error("no conversion")) },
  identities: { load: async () => identity },
  fonts: testFonts,
  limits: {
    maxDocumentBytes: 25 * 1024 * 1024,
    maxEntries: 5000,
    maxUncompressedBytes: 200 * 1024 * 1024,
    maxImagePixels: 100_000_000,
    maxSvgBytes: 10 * 1024 * 1024,
    maxAuditEvents: 10_000,
    maxMetadataBytes: 16 * 1024,
  },
});

const sign = async (pdf: Buffer) => (await signWithNotices(pdf)).signed;

const signWithNotices = (pdf: Buffer) =>
  signDocumentWithNotices(
    {
      document: { base64: pdf.toString("base64") },
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-22T10:00:00Z" }],
    },
    deps(),
  );

/**
 * expectSignedWithEveryPage checks a signed output: every original page (and the certificate page
 * unless it had to be left out) in poppler and MuPDF, each page's text in each reader that showed
 * it in the input, qpdf --check without errors, strict pyHanko.
 */
async function expectSignedWithEveryPage(
  input: cases.RealWorldCase,
  signed: Buffer,
  options: { qpdfWarnings?: boolean; certificatePage?: boolean } = {},
): Promise<void> {
  const { qpdfWarnings = false, certificatePage = true } = options;
  const pages = input.pages + (certificatePage ? 1 : 0);
  expect(await pdfPageCount(signed), "poppler's page count").toBe(pages);
  expect(await mutoolPageCount(signed), "MuPDF's page count").toBe(pages);
  const check = await qpdfCheck(signed);
  expect(check.output, "qpdf --check").not.toMatch(/ERROR|[Ll]oop/);
  if (!qpdfWarnings) expect(check.ok, check.output).toBe(true);
  const mutool = (pdf: Buffer) => mutoolText(pdf).catch(() => ""); // MuPDF fails on a catalog /Pages that is a page
  // Each reader shows every page text it showed in the input (poppler leaves direct page dictionaries blank).
  for (const [reader, read] of [
    ["poppler", pdfText],
    ["MuPDF", mutool],
  ] as const) {
    const before = await read(input.bytes);
    const after = await read(signed);
    for (const label of input.texts.filter((text) => before.includes(text))) expect(after, `${reader} shows ${label}`).toContain(label);
    if (certificatePage) expect(after, `${reader} shows the certificate page`).toContain("Audit Trail Certificate");
  }
  if (!certificatePage) expect(signed.subarray(input.bytes.length).toString("latin1")).toContain(`/${AUDIT_RECORD_KEY}`);
  const report = pyhankoValidate(signed);
  expect(report.signatures, report.output).toHaveLength(1);
  expect(report.allHold, report.output).toBe(true);
}

describe("signing real-world structures keeps every page", () => {
  it("a cross-reference stream with 8-byte offsets (/W [1 8 2]) is read and signed", async () => {
    const input = cases.wideXrefStream();
    await expectSignedWithEveryPage(input, await sign(input.bytes));
  });

  it("a file pyHanko signed with its cross-reference stream (/W [1 8 2]): signed again, both signatures hold in pyHanko", async () => {
    const presigned = signWithPyhanko(await makePdf(2));
    expect(presigned.toString("latin1")).toMatch(/\/W\s*\[\s*1\s+8\s+2\s*\]/);
    const signed = await sign(presigned);
    expect(signed.subarray(0, presigned.length).equals(presigned)).toBe(true);
    const report = pyhankoValidate(signed);
    expect(report.signatures, report.output).toHaveLength(2);
    expect(report.allHold, report.output).toBe(true);
    expect(await pdfPageCount(signed)).toBe(2);
  });

  it("a well-formed nested tree: the certificate page is one new kid of the root; no existing page or node is rewritten", async () => {
    const input = cases.nestedTree();
    const signed = await sign(input.bytes);
    await expectSignedWithEveryPage(input, signed);
    const update = signed.subarray(input.bytes.length).toString("latin1");
    for (const unchanged of [4, 6, 7, 9]) expect(update).not.toMatch(new RegExp(`(^|\\s)${unchanged} 0 obj`));
    expect(update).toMatch(/(^|\s)2 0 obj\s*<<[\s\S]*?\/Count 4/);
  });

  it("nodes without /Type: every page is kept, the certificate page added", async () => {
    // qpdf keeps warning about the input's missing /Type: those objects are left as they were.
    const input = cases.untypedNodes();
    await expectSignedWithEveryPage(input, await sign(input.bytes), { qpdfWarnings: true });
  });

  it.each([
    ["a direct page dictionary among the kids", cases.directKid()],
    ["only direct page dictionaries as kids", cases.onlyDirectKids()],
  ])("%s: signed without the certificate page (poppler would not show it), every page kept, the audit record in the signature", async (_name, input) => {
    await expectSignedWithEveryPage(input, await sign(input.bytes), { qpdfWarnings: true, certificatePage: false });
  });

  it("a catalog /Pages that points at a page gets a new root over it and the certificate page: every reader shows both", async () => {
    const input = cases.pagesIsPage();
    const signed = await sign(input.bytes);
    await expectSignedWithEveryPage(input, signed);
    expect(await qpdfPageCount(signed)).toBe(2);
  });

  it("a page tree with a loop is refused with a 422 that names it", async () => {
    await expect(sign(cases.loopedTree().bytes)).rejects.toMatchObject({
      code: "INVALID_DOCUMENT",
      message: expect.stringMatching(/page tree has a loop \(object 2/),
    });
  });

  it("an encrypted file with a cross-reference stream (/W [1 8 2]) is ENCRYPTED_DOCUMENT", async () => {
    await expect(sign(cases.encryptedWideXrefStream().bytes)).rejects.toMatchObject({ code: "ENCRYPTED_DOCUMENT" });
  });
});

/** auditRecordOf reads the audit record of the last signature (the document opened the way Signet opens it). */
async function auditRecordOf(signed: Buffer): Promise<Record<string, unknown>> {
  const fields = (await PDF.load(signed))
    .getForm()!
    .getFields()
    .filter((field) => field.type === "signature");
  const dict = (fields.at(-1) as unknown as { getSignatureDict(): PdfDict }).getSignatureDict();
  return JSON.parse(dict.getString(AUDIT_RECORD_KEY)!.asString()) as Record<string, unknown>;
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

describe("inputs that need a rewrite", () => {
  it.each([["missing-xref-keyword" as const], ["startxref-off-by-one" as const], ["space-padded-table" as const]])(
    "an unsigned file with recoverable damage (%s) is rewritten once and signed; the answer and the audit record say so",
    async (damage) => {
      const input = cases.damaged(damage);
      const { signed, notices } = await signWithNotices(input.bytes);
      expect(notices).toEqual({ "Signet-Input-Rewritten": "repaired cross-reference" });
      await expectSignedWithEveryPage(input, signed);
      const rewrite = signed.subarray(0, signed.indexOf("%%EOF") + 6);
      expect(await auditRecordOf(signed)).toMatchObject({
        documentSha256: sha256(input.bytes),
        rewrittenDocument: { reason: "repaired cross-reference", sha256: sha256(rewrite) },
      });
      expect(await pdfText(signed, { first: input.pages + 1 })).toContain(sha256(rewrite).slice(0, 16));
    },
  );

  it("a signed file that needs repair is refused, naming why", async () => {
    const signedOnce = await signPdf(cases.nestedTree().bytes, {
      identity,
      signingTime: new Date("2026-11-22T10:00:00Z"),
      signerName: "First",
      reason: "first",
    });
    // startxref one byte off: readers repair it, but a repair rewrites the file and voids the signature.
    const damaged = Buffer.from(
      signedOnce.toString("latin1").replace(/startxref\s+(\d+)\s+%%EOF\s*$/, (_, at: string) => `startxref\n${Number(at) + 1}\n%%EOF\n`),
      "latin1",
    );
    expect(damaged.equals(signedOnce)).toBe(false);
    await expect(sign(damaged)).rejects.toMatchObject({
      code: "INVALID_DOCUMENT",
      message: expect.stringMatching(/damaged and the PDF already holds signatures/),
    });
  });

  it("an unsigned hybrid-reference file is rewritten as a plain file and signed: strict pyHanko evaluates the signature", async () => {
    const input = cases.hybrid();
    const { signed, notices } = await signWithNotices(input.bytes);
    expect(notices).toEqual({ "Signet-Input-Rewritten": "hybrid cross-reference made plain" });
    expect(signed.toString("latin1")).not.toContain("/XRefStm");
    await expectSignedWithEveryPage(input, signed);
  });

  it("a signed hybrid-reference file is kept as it is and the answer says strict validators will not evaluate it", async () => {
    const input = cases.hybrid();
    const signedOnce = await signPdf(input.bytes, { identity, signingTime: new Date("2026-11-22T10:00:00Z"), signerName: "First", reason: "first" });
    const { signed, notices } = await signWithNotices(signedOnce);
    expect(notices["Signet-Notice"]).toMatch(/hybrid-reference file kept as it is .*strict validators such as pyHanko will not evaluate its signatures/);
    expect(notices["Signet-Input-Rewritten"]).toBeUndefined();
    expect(signed.subarray(0, signedOnce.length).equals(signedOnce)).toBe(true);
    expect(await pdfPageCount(signed)).toBe(input.pages);
    // What the notice says: strict pyHanko refuses to evaluate the signatures at all.
    const file = join(scratchDir("hybrid"), "signed.pdf");
    writeFileSync(file, signed);
    const strict = runPyhanko("pyhanko-validate.py", [file]);
    expect(`${strict.stdout}${strict.stderr}`).toMatch(/do not permit validation of signatures in hybrid-reference files/);
    expect((await pdfsig(signed)).map((signature) => signature.valid)).toEqual([true, true]);
  });
});
