import { beforeAll, describe, expect, it } from "vitest";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { MAX_SIGNATURES, RangeDigests, verifySignatures, type TrustStore } from "#domain/verification/signature-verifier.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { pdfsig } from "#test/helpers/pdf-tools.ts";
import { signWithSignpdf } from "#test/helpers/other-signers.ts";
import { makePdf, withSharedSignatureFields } from "#test/helpers/pdf-builder.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

let service: SigningIdentity;
let input: Buffer;
let signed: Buffer;
let trust: TrustStore;

beforeAll(async () => {
  service = await generateIdentity({ keyType: "EC" });
  trust = { anchors: [service.certificate] };
  input = await makePdf(2);
  signed = await signPdf(input, {
    identity: service,
    signingTime: new Date("2026-11-22T10:00:00Z"),
    signerName: "Ada Lovelace",
    reason: "r",
    contactInfo: "ada@example.com",
  });
  await expectSignedPdf(signed, { input });
}, 30_000);

async function verify(bytes: Buffer, store = trust) {
  return verifySignatures(openPdfFile(bytes), store);
}

describe("verifySignatures", () => {
  it("reports an untouched signed file as valid, trusted and covering the whole file", async () => {
    const report = await verify(signed);
    expect(report.valid).toBe(true);
    expect(report.signatures).toHaveLength(1);
    expect(report.signatures[0]).toMatchObject({
      field: "Signet_1",
      subFilter: "ETSI.CAdES.detached",
      signerName: "Ada Lovelace",
      integrity: "ok",
      trusted: true,
      coversWholeDocument: true,
      modifiedAfter: false,
      signingTime: "2026-11-22T10:00:00.000Z",
      fingerprint: service.certificate.fingerprint256,
    });
    expect(report.signer).toEqual({ name: "Ada Lovelace", email: "ada@example.com", certificateSubject: "CN=Signet Local Signing" });
    expect(report.signers).toHaveLength(1);
    expect(report.document.pages).toBe(2);
  });

  it("reports integrity broken when one byte inside the signed range changes", async () => {
    const tampered = Buffer.from(signed);
    // The header's version digit: inside the signed range, and the file still parses.
    expect(tampered.subarray(0, 8).toString("latin1")).toBe("%PDF-1.7");
    tampered[7] = "6".charCodeAt(0);
    const report = await verify(tampered);
    expect(report.valid).toBe(false);
    expect(report.signatures[0]!.integrity).toBe("broken");
    expect(report.reason).toMatch(/changed/);
    // poppler agrees: the same file fails its own check.
    expect((await pdfsig(tampered))[0]!.valid).toBe(false);
  });

  it("reports modifiedAfter when bytes are appended after signing", async () => {
    const appended = Buffer.concat([signed, Buffer.from("\n% appended after signing\n")]);
    const report = await verify(appended);
    expect(report.valid).toBe(true);
    expect(report.signatures[0]).toMatchObject({ integrity: "ok", modifiedAfter: true, coversWholeDocument: false });
    expect(report.reason).toMatch(/added after the last signature/);
  });

  it("is not trusted for a certificate outside the trust store, yet intact", async () => {
    const report = await verify(signed, { anchors: [] });
    expect(report.signatures[0]).toMatchObject({ integrity: "ok", trusted: false });
    expect(report.valid).toBe(true);
  });

  it("trusts a chained signer through a configured anchor", async () => {
    const root = await generateIdentity({ keyType: "EC", commonName: "Customer Root", isCa: true });
    const leaf = await generateIdentity({ keyType: "RSA", rsaBits: 2048, commonName: "Customer Signer", issuer: root });
    const bytes = await signPdf(input, { identity: leaf, signingTime: new Date(), signerName: "Customer", reason: "r" });
    await expectSignedPdf(bytes, { input });
    expect((await verify(bytes, { anchors: [root.certificate] })).signatures[0]!.trusted).toBe(true);
    expect((await verify(bytes)).signatures[0]!.trusted).toBe(false);
  });

  it("checks signatures made by another library, and both of a double-signed file", async () => {
    const foreign = await signWithSignpdf(input);
    expect((await pdfsig(foreign))[0]!.valid).toBe(true);
    const foreignReport = await verify(foreign);
    expect(foreignReport.valid).toBe(true);
    expect(foreignReport.signatures[0]).toMatchObject({
      subFilter: "adbe.pkcs7.detached",
      integrity: "ok",
      trusted: false,
      certificateSubject: "CN=Other Tool Signer",
    });

    const both = await signPdf(foreign, { identity: service, signingTime: new Date(), signerName: "Ada Lovelace", reason: "r" });
    // pdfsig agrees: the other tool's signature stays valid beside ours.
    await expectSignedPdf(both, { input: foreign, signatures: 2, types: ["adbe.pkcs7.detached", "ETSI.CAdES.detached"] });
    const report = await verify(both);
    expect(report.valid).toBe(true);
    expect(report.signatures.map((signature) => [signature.integrity, signature.modifiedAfter])).toEqual([
      ["ok", true],
      ["ok", false],
    ]);
    expect(report.signer?.name).toBe("Ada Lovelace");
    expect(report.signers).toHaveLength(2);
  }, 30_000);

  it("hashes a /ByteRange shared by many signature fields once", async () => {
    const copies = await withSharedSignatureFields(signed, MAX_SIGNATURES - 1);
    const digests = new RangeDigests(copies);
    const report = await verifySignatures(openPdfFile(copies), trust, digests);
    expect(report.signatures).toHaveLength(MAX_SIGNATURES);
    expect(report.signatures.every((signature) => signature.integrity === "ok" && signature.modifiedAfter)).toBe(true);
    expect(digests.computed).toBe(1);
  }, 30_000);

  it(`refuses a PDF with more than ${MAX_SIGNATURES} signatures (422 INVALID_DOCUMENT)`, async () => {
    expect(MAX_SIGNATURES).toBe(100);
    const copies = await withSharedSignatureFields(signed, MAX_SIGNATURES);
    const failure = await verify(copies).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: "INVALID_DOCUMENT", message: expect.stringMatching(/101 signature fields; .* at most 100 signatures/) });
  }, 30_000);

  it("says so when there is no signature", async () => {
    const report = await verify(input);
    expect(report).toMatchObject({ valid: false, reason: "The document has no signatures.", signatures: [], signer: null });
  });
});

describe("openPdfFile (shared by signing and verification)", () => {
  it("names encrypted and damaged PDFs, and counts pages once", async () => {
    expect(() => openPdfFile(Buffer.from("%PDF-1.7\nthis is not a pdf"))).toThrow(
      expect.objectContaining({ code: "INVALID_DOCUMENT", message: expect.stringMatching(/damaged/) }),
    );
    const { execFileSync } = await import("node:child_process");
    const { writeFileSync, readFileSync } = await import("node:fs");
    const dir = scratchDir("verify-encrypted");
    writeFileSync(`${dir}/in.pdf`, signed);
    execFileSync("qpdf", ["--encrypt", "user", "owner", "256", "--", `${dir}/in.pdf`, `${dir}/out.pdf`]);
    expect(() => openPdfFile(readFileSync(`${dir}/out.pdf`))).toThrow(
      expect.objectContaining({ code: "ENCRYPTED_DOCUMENT", message: expect.stringMatching(/password/) }),
    );
    expect(openPdfFile(input).pageCount).toBe(2);
  });
});
