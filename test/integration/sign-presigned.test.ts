import { beforeAll, describe, expect, it } from "vitest";
import { PDF, type PdfDict } from "@libpdf/core";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { AUDIT_RECORD_KEY } from "#domain/signing/pades-signer.ts";
import { signDocument, type SignDependencies, type SignInput } from "#domain/signing/sign-document.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { pdfPageCount, pdfText } from "#test/helpers/pdf-tools.ts";
import { signWithPyhanko, signWithSignpdf } from "#test/helpers/other-signers.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { expectSignedPdf, holdsInPyhanko, pyhankoValidate } from "#test/helpers/signature-checks.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

// Signing a document that already holds signatures (Signet's own, another tool's,
// a certification with DocMDP P=2 or P=3) keeps every earlier signature valid in pyHanko, whose
// difference analysis classes each later update; the new signer's audit trail is still bound.

let identity: SigningIdentity;
let base: Buffer;

beforeAll(async () => {
  identity = await generateIdentity({ keyType: "EC" });
  // A classic xref table: pyHanko keeps the table format in its own update (see makePdf).
  base = await makePdf(2, { classicXref: true });
}, 30_000);

const noFetch: Fetcher = { fetch: () => Promise.reject(new Error("no fetch in this test")) };

function deps(): SignDependencies {
  return {
    fetcher: noFetch,
    converter: { convert: () => Promise.reject(new Error("no conversion in this test")) },
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
    now: () => new Date("2026-11-22T10:00:00Z"),
  };
}

function request(pdf: Buffer, name: string, extra: Partial<SignInput> = {}): SignInput {
  return {
    document: { base64: pdf.toString("base64") },
    signer: { name, email: `${name.split(" ")[0]!.toLowerCase()}@example.com`, ip: "192.0.2.7" },
    auditTrail: [
      { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
      { type: "submit", timestamp: "2026-11-22T09:59:30Z", data: { button: "Finish" } },
    ],
    eventId: `evt_${name.length}`,
    ...extra,
  };
}

const sign = (pdf: Buffer, name = "Ada Lovelace", extra: Partial<SignInput> = {}) => signDocument(request(pdf, name, extra), deps());

/** expectAllHold asserts pyHanko's verdict on every signature: intact, valid, at most form filling after it. */
function expectAllHold(pdf: Buffer, count: number): void {
  const report = pyhankoValidate(pdf);
  expect(report.signatures, report.output).toHaveLength(count);
  for (const signature of report.signatures) {
    expect(holdsInPyhanko(signature), report.output).toBe(true);
    expect(["NONE", "LTA_UPDATES", "FORM_FILLING"], report.output).toContain(signature.modificationLevel);
  }
  expect(report.allHold, report.output).toBe(true);
}

/** auditRecordOf reads the audit record from the last signature's dictionary. */
async function auditRecordOf(pdf: Buffer): Promise<Record<string, unknown>> {
  const doc = await PDF.load(pdf);
  const field = doc
    .getForm()!
    .getFields()
    .filter((item) => item.type === "signature")
    .at(-1)!;
  const dict = (field as unknown as { getSignatureDict(): PdfDict }).getSignatureDict();
  return JSON.parse(dict.getString(AUDIT_RECORD_KEY)!.asString()) as Record<string, unknown>;
}

describe("signing an unsigned PDF", () => {
  it("appends the certificate page; pyHanko and pdfsig accept the one signature", async () => {
    const signed = await sign(base);
    await expectSignedPdf(signed, { input: base });
    expectAllHold(signed, 1);
    expect(await pdfPageCount(signed)).toBe(3);
    expect(await pdfText(signed, { first: 3 })).toContain("Audit Trail Certificate");
  });

  it.each([
    ["landscape A4", [842, 595] as [number, number]],
    ["US Letter", [612, 792] as [number, number]],
  ])("sizes the certificate page like the last page (%s)", async (_name, size) => {
    const input = await makePdf(1, { size });
    const signed = await sign(input);
    const pages = (await PDF.load(signed)).getPages();
    // The certificate may take more than one page (landscape is short); every one has the size.
    expect(pages.length).toBeGreaterThanOrEqual(2);
    for (const page of pages.slice(1)) expect([page.width, page.height]).toEqual(size);
  });
});

describe("signing a PDF that already holds signatures", () => {
  const cases: Array<[string, () => Promise<{ input: Buffer; types: string[] }>]> = [
    ["Signet on Signet", async () => ({ input: await sign(base, "Grace Hopper"), types: ["ETSI.CAdES.detached"] })],
    ["@signpdf (adbe.pkcs7.detached)", async () => ({ input: await signWithSignpdf(base), types: ["adbe.pkcs7.detached"] })],
    ["pyHanko PAdES", async () => ({ input: signWithPyhanko(base), types: ["ETSI.CAdES.detached"] })],
    ["a certification with DocMDP P=2", async () => ({ input: signWithPyhanko(base, { certify: 2 }), types: ["ETSI.CAdES.detached"] })],
    ["a certification with DocMDP P=3", async () => ({ input: signWithPyhanko(base, { certify: 3 }), types: ["ETSI.CAdES.detached"] })],
  ];

  it.each(cases)("keeps every earlier signature valid in pyHanko and pdfsig: %s", async (_name, make) => {
    const { input, types } = await make();
    expectAllHold(input, 1);
    const pagesBefore = await pdfPageCount(input);
    const signed = await sign(input);
    // No page after an earlier signature: the page count stays, every signature holds in both validators.
    expect(await pdfPageCount(signed)).toBe(pagesBefore);
    await expectSignedPdf(signed, { input, signatures: 2, types: [...types, "ETSI.CAdES.detached"] });
    expectAllHold(signed, 2);
    // The complete audit trail is in the new signature's dictionary, covered by the signature.
    const record = await auditRecordOf(signed);
    expect(record).toMatchObject({
      format: "signet-audit-record/1",
      eventId: "evt_12",
      signer: { name: "Ada Lovelace", email: "ada@example.com", ip: "192.0.2.7" },
    });
    expect((record.events as Array<{ type: string }>).map((event) => event.type)).toEqual(["ready", "submit"]);
    // The signature the document held when Signet signed it, with the verifier's verdict then.
    const earlier = record.earlierSignatures as Array<Record<string, unknown>>;
    expect(earlier, JSON.stringify(record)).toHaveLength(1);
    expect(earlier[0]).toMatchObject({ intact: true, documentTimestamp: false });
    expect(earlier[0]!.field).toEqual(expect.any(String));
    expect(earlier[0]!.signer).toEqual(expect.stringMatching(/\S/));
    expect(Number.isNaN(Date.parse(earlier[0]!.claimedTime as string))).toBe(false);
  });

  it("signs three times in turn, every signature holding in pyHanko, each record listing the ones before it", async () => {
    const thrice = await sign(await sign(await sign(base, "Grace Hopper"), "Alan Turing"), "Ada Lovelace");
    await expectSignedPdf(thrice, { signatures: 3 });
    expectAllHold(thrice, 3);
    const earlier = (await auditRecordOf(thrice)).earlierSignatures as Array<Record<string, unknown>>;
    expect(earlier.map(({ signer, claimedTime, intact }) => ({ signer, claimedTime, intact }))).toEqual([
      { signer: "Grace Hopper", claimedTime: "2026-11-22T10:00:00.000Z", intact: true },
      { signer: "Alan Turing", claimedTime: "2026-11-22T10:00:00.000Z", intact: true },
    ]);
  });

  it("records an earlier signature that was already broken as not intact", async () => {
    const input = await sign(base, "Grace Hopper");
    // Same-length change inside the signed bytes (the signature's /Reason): the digest no longer matches.
    const at = input.indexOf("Signed by Grace");
    expect(at).toBeGreaterThan(0);
    const tampered = Buffer.from(input);
    tampered.write("Signed by Grave", at, "latin1");
    const record = await auditRecordOf(await sign(tampered));
    expect(record.earlierSignatures).toMatchObject([{ signer: "Grace Hopper", intact: false }]);
  });

  it("records no earlier signatures for an unsigned document", async () => {
    expect(await auditRecordOf(await sign(base))).not.toHaveProperty("earlierSignatures");
  });

  it("shows a compact audit stamp on the last existing page of an approval-signed document", async () => {
    const signed = await sign(await sign(base, "Grace Hopper"), "Zoë Ünal");
    // The stamp's standard font shows Latin letters without accents; pdftotext may wrap its lines.
    const last = (await pdfText(signed, { first: 3 })).replace(/\s+/g, "");
    expect(last).toContain("SignedelectronicallybyZoeUnal<zoe@example.com>");
    expect(last).toContain("Audittrail:2events,recordedinthissignature");
    expect(last).toContain("Earliersignatures:1,listedintherecord;checkthemwith/v1/verify");
  });

  it("makes the widget invisible after a certification (pyHanko refuses new visible fields there)", async () => {
    const signed = await sign(signWithPyhanko(base, { certify: 2 }));
    expect(await pdfText(signed)).not.toContain("Signed electronically");
    expectAllHold(signed, 2);
  });
});
