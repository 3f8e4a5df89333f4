import { beforeAll, describe, expect, it } from "vitest";
import { AUDIT_RECORD_KEY } from "#domain/signing/pades-signer.ts";
import { signDocument, type SignDependencies } from "#domain/signing/sign-document.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { mutoolPageCount, mutoolText, pdfPageCount, pdfText, qpdfCheck, qpdfPageCount } from "#test/helpers/pdf-tools.ts";
import * as cases from "#test/helpers/real-world-pdfs.ts";
import { makePdf, pyhankoValidate, signWithPyhanko, testFonts } from "#test/helpers/sign-tools.ts";

// Issue 28: PDFs with the structures real-world writers produce, generated in
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
    maxAuditEvents: 10_000,
    maxMetadataBytes: 16 * 1024,
  },
});

const sign = (pdf: Buffer) =>
  signDocument(
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

describe("signing real-world structures keeps every page (issue 28)", () => {
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
