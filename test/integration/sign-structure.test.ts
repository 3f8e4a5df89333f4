import { beforeAll, describe, expect, it } from "vitest";
import { PDF, type PdfDict, type PdfRef } from "@libpdf/core";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { signDocument, type SignDependencies } from "#domain/signing/sign-document.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { verifyDocument } from "#domain/verification/verify-document.ts";
import { hugePdf } from "#test/helpers/huge-pdf.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { cmsOf, expectSignedPdf, pyhankoValidate } from "#test/helpers/signature-checks.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

// C (structure details) (page limit).

let identity: SigningIdentity;

beforeAll(async () => {
  identity = await generateIdentity();
}, 30_000);

const limits = {
  maxDocumentBytes: 25 * 1024 * 1024,
  maxEntries: 5000,
  maxUncompressedBytes: 200 * 1024 * 1024,
  maxImagePixels: 100_000_000,
  maxSvgBytes: 10 * 1024 * 1024,
  maxAuditEvents: 10_000,
  maxMetadataBytes: 16 * 1024,
};

function deps(extra: Partial<SignDependencies["limits"]> = {}): SignDependencies {
  return {
    fetcher: { fetch: () => Promise.reject(new Error("no fetch")) },
    converter: { convert: () => Promise.reject(new Error("no conversion")) },
    identities: { load: async () => identity },
    fonts: testFonts,
    limits: { ...limits, ...extra },
  };
}

const request = (pdf: Buffer, certificate = true) => ({
  document: { base64: pdf.toString("base64") },
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit" as const, timestamp: "2026-11-22T10:00:00Z" }],
  certificate: { enabled: certificate },
});

const bb = (pdf: Buffer) => signPdf(pdf, { identity, signingTime: new Date("2026-11-22T10:00:00Z"), signerName: "Ada Lovelace", reason: "test" });

/** updateOf is the text of what signing appended to the input. */
const updateOf = (input: Buffer, output: Buffer) => output.subarray(input.length).toString("latin1");

describe("signature structure", () => {
  it("lists the widget in its page's /Annots with the certificate page off (ISO 32000-1 12.5.2)", async () => {
    const input = await makePdf(2);
    const signed = await signDocument(request(input, false), deps());
    const doc = await PDF.load(signed);
    const field = doc
      .getForm()!
      .getFields()
      .find((item) => item.type === "signature")!;
    const widget = (field as unknown as { getDict(): PdfDict }).getDict();
    const pageRef = widget.get("P") as PdfRef;
    const page = doc.getObject(pageRef) as PdfDict;
    const annots = page.getArray("Annots", (ref: PdfRef) => doc.getObject(ref))!;
    const fieldRef = (field as unknown as { ref: PdfRef }).ref;
    expect(annots.toArray()).toContain(fieldRef);
    expect(pyhankoValidate(signed).allHold).toBe(true);
  });

  it("sizes /Contents from the CMS itself: a few dozen bytes of slack, not kilobytes", async () => {
    const input = await makePdf(1);
    const signed = await bb(input);
    const text = signed.toString("latin1");
    const at = text.lastIndexOf("/Contents <");
    const reserved = (text.indexOf(">", at) - at - "/Contents <".length) / 2;
    const used = cmsOf(signed).length;
    expect(reserved - used).toBeGreaterThanOrEqual(0);
    expect(reserved - used).toBeLessThanOrEqual(128);
  });

  it("writes no unchanged page object: a 12-page document gains its certificate page only", async () => {
    const input = await makePdf(12);
    const signed = await signDocument(request(input), deps());
    const pages = updateOf(input, signed).match(/\/Type\s*\/Page\b/g) ?? [];
    expect(pages).toHaveLength(1);
    await expectSignedPdf(signed, { input });
  });

  it("declares the ETSI extension in a PDF 1.3 file and keeps its header; the /ID's second half changes", async () => {
    const made = await makePdf(1, { classicXref: true });
    const input = Buffer.from(made);
    input.write("%PDF-1.3", 0, "latin1");
    const signed = await bb(input);
    expect(signed.subarray(0, 8).toString("latin1")).toBe("%PDF-1.3");
    const doc = await PDF.load(signed);
    const resolve = (ref: PdfRef) => doc.getObject(ref);
    const catalog = doc.getCatalog();
    expect(catalog.getName("Version")?.value).toBe("1.7");
    const esic = catalog.getDict("Extensions", resolve)!.getDict("ESIC", resolve)!;
    expect(esic.getName("BaseVersion")?.value).toBe("1.7");
    expect(esic.getNumber("ExtensionLevel")?.value).toBe(2);

    await expectSignedPdf(signed, { input });
    expect(pyhankoValidate(signed).allHold).toBe(true);
    // Signing it again keeps both valid (/Extensions and /Version are already there); the trailer
    // /ID keeps its first half (the document's identity) and gets a new second half (this version).
    const twice = await bb(signed);
    expect(pyhankoValidate(twice).allHold).toBe(true);
    const ids = (text: string) =>
      [...text.matchAll(/\/ID\s*\[\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)]
        .at(-1)!
        .slice(1)
        .map((id) => id!.toUpperCase());
    const [before1, before2] = ids(signed.toString("latin1"));
    const [after1, after2] = ids(twice.toString("latin1"));
    expect(after1).toBe(before1);
    expect(after2).not.toBe(before2);
    expect(after2).not.toBe(after1);
  });
});

describe("page limit", () => {
  it("answers 413 naming the limit for a valid 200,000-page PDF, on sign and on verify", async () => {
    const huge = hugePdf(200_000, 200_000);
    const signing = await signDocument(request(huge), deps()).catch((error: unknown) => error);
    expect(signing).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect((signing as Error).message).toMatch(/200000 pages; Signet accepts at most 10000\. Split the document\./);
    const verifying = await verifyDocument(
      { base64: huge.toString("base64") },
      { fetcher: deps().fetcher, limits, trust: async () => ({ anchors: [] }) },
    ).catch((error: unknown) => error);
    expect(verifying).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  }, 60_000);

  it("counts the pages a nested tree really has against a configured limit", async () => {
    const input = hugePdf(30, 10);
    expect(() => openPdfFile(input, { maxPages: 29 })).toThrow(
      expect.objectContaining({
        code: "PAYLOAD_TOO_LARGE",
        message: expect.stringMatching(/30 pages; Signet accepts at most 29/),
      }),
    );
    expect(openPdfFile(input, { maxPages: 30 }).pageCount).toBe(30);
    const signed = await signDocument(request(input), deps({ maxPdfPages: 30 }));
    await expectSignedPdf(signed, { input });
  });
});
