import * as pkijs from "pkijs";
import { beforeAll, describe, expect, it } from "vitest";
import { drawAuditCertificate } from "#domain/certificate-page/audit-certificate.ts";
import { oids } from "#domain/pki/oids.ts";
import { signPdf, type PadesSignOptions } from "#domain/signing/pades-signer.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { pdfPageCount, renderPages } from "#test/helpers/pdf-tools.ts";
import { certify, makePdf } from "#test/helpers/pdf-builder.ts";
import { cmsOf, expectSignedPdf } from "#test/helpers/signature-checks.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

let rsa: SigningIdentity;
let ec: SigningIdentity;
let input: Buffer;

beforeAll(async () => {
  [rsa, ec] = await Promise.all([generateIdentity(), generateIdentity({ keyType: "EC", commonName: "Signet P-256 Test" })]);
  input = await makePdf(3);
}, 30_000);

const fonts = testFonts();

function options(identity: SigningIdentity, extra: Partial<PadesSignOptions> = {}): PadesSignOptions {
  return {
    identity,
    signingTime: new Date("2026-11-22T10:00:00Z"),
    signerName: "Ada Lovelace",
    reason: "Signed by Ada Lovelace <ada@example.com>",
    contactInfo: "ada@example.com",
    decorate: (pdf) =>
      drawAuditCertificate(
        pdf,
        {
          documentSha256: "0".repeat(64),
          documentPages: 3,
          signer: { name: "Ada Lovelace", email: "ada@example.com" },
          events: [{ type: "submit", timestamp: "2026-11-22T09:59:00Z" }],
          signingTime: new Date("2026-11-22T10:00:00Z"),
          service: { subject: identity.certificate.subject, fingerprint: identity.certificate.fingerprint256, algorithm: "test" },
        },
        fonts,
      ),
    ...extra,
  };
}

describe("PAdES signing", () => {
  it.each([
    ["RSA-3072", () => rsa],
    ["ECDSA P-256", () => ec],
  ])("makes a B-B signature pdfsig accepts, as an incremental update (%s)", async (_name, identity) => {
    const signed = await signPdf(input, options(identity()));
    // One signature, ETSI.CAdES.detached, valid, covering the whole file; qpdf clean; the input a prefix.
    await expectSignedPdf(signed, { input });
    expect(await pdfPageCount(signed)).toBe(4);
  });

  it("writes signed attributes content-type, message-digest and signing-certificate-v2, and no signing-time", async () => {
    const signed = await signPdf(input, options(rsa));
    await expectSignedPdf(signed, { input });
    const contentInfo = pkijs.ContentInfo.fromBER(cmsOf(signed));
    const signedData = new pkijs.SignedData({ schema: contentInfo.content });
    const types = signedData.signerInfos[0]!.signedAttrs!.attributes.map((attribute) => attribute.type);
    expect(types).toContain(oids.contentType);
    expect(types).toContain(oids.messageDigest);
    expect(types).toContain(oids.signingCertificateV2);
    expect(types).not.toContain(oids.signingTime);
    expect(signedData.certificates).toHaveLength(1);
    // The claimed time is in /M instead.
    expect(signed.toString("latin1")).toContain("/M (D:20261122100000Z)");
  });

  it("keeps an earlier signature valid when signing a signed file (pdfsig shows both)", async () => {
    const once = await signPdf(input, options(rsa));
    await expectSignedPdf(once, { input });
    const twice = await signPdf(once, options(ec, { signerName: "Grace Hopper" }));
    // Both valid and ETSI.CAdES.detached, the second covering the whole file; the once-signed file a prefix.
    const signatures = await expectSignedPdf(twice, { input: once, signatures: 2 });
    expect(signatures[0]!.totalDocumentSigned).toBe(false);
  });

  it("leaves every page of the input pixel-identical", async () => {
    const signed = await signPdf(input, options(rsa));
    await expectSignedPdf(signed, { input });
    const before = await renderPages(input, 1, 3);
    const after = await renderPages(signed, 1, 3);
    for (let page = 0; page < 3; page++) expect(after[page]!.equals(before[page]!)).toBe(true);
  });

  it("embeds the issuer chain when the identity has one", async () => {
    const ca = await generateIdentity({ keyType: "EC", commonName: "Test CA", isCa: true });
    const leaf = await generateIdentity({ keyType: "RSA", rsaBits: 2048, commonName: "Chained Signer", issuer: ca });
    const signed = await signPdf(input, options(leaf));
    const signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(cmsOf(signed)).content });
    expect(signedData.certificates).toHaveLength(2);
    await expectSignedPdf(signed, { input });
  });

  it("adds no page without a decorator", async () => {
    const signed = await signPdf(input, { ...options(rsa), decorate: undefined });
    expect(await pdfPageCount(signed)).toBe(3);
    await expectSignedPdf(signed, { input });
  });

  it("fails loudly when the CMS does not fit the reserved space", async () => {
    await expect(signPdf(input, options(rsa, { contentsBytes: 600 }))).rejects.toThrow(/reserved/);
  });

  it("rejects broken and encrypted PDFs with named errors", async () => {
    await expect(signPdf(Buffer.from("%PDF-1.7\nthis is not a pdf"), options(rsa))).rejects.toMatchObject({ code: "INVALID_DOCUMENT" });
    const { execFileSync } = await import("node:child_process");
    const { writeFileSync, readFileSync } = await import("node:fs");
    const { scratchDir } = await import("#test/helpers/scratch.ts");
    const dir = scratchDir("encrypted");
    writeFileSync(`${dir}/in.pdf`, input);
    execFileSync("qpdf", ["--encrypt", "user", "owner", "256", "--", `${dir}/in.pdf`, `${dir}/out.pdf`]);
    await expect(signPdf(readFileSync(`${dir}/out.pdf`), options(rsa))).rejects.toMatchObject({ code: "ENCRYPTED_DOCUMENT" });
  });
});

describe("certified documents (DocMDP)", () => {
  it("refuses a document certified against any change (P=1) with INVALID_DOCUMENT", async () => {
    const certified = await certify(input, 1);
    await expect(signPdf(certified, options(ec))).rejects.toMatchObject({
      code: "INVALID_DOCUMENT",
      message: expect.stringMatching(/^The document is certified against changes; /),
    });
  });

  it.each([
    [2, "form filling and signing"],
    [3, "form filling, signing and annotations"],
  ] as const)("signs a document whose certification allows signing (P=%i: %s), the signature valid", async (p, _allows) => {
    const certified = await certify(input, p);
    const signed = await signPdf(certified, options(ec));
    await expectSignedPdf(signed, { input: certified });
  });
});
