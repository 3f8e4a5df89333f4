import { PDF } from "@libpdf/core";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { PdfFile } from "#domain/pdf/pdf-file.ts";
import { signPdf } from "#domain/signing/pades-signer.ts";
import { generateIdentity, type SigningIdentity } from "#domain/signing/signing-identity.ts";
import { verifyDocument } from "#domain/verification/verify-document.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";

// Issue 37: a verification is one Signet parse. verifyDocument builds one PdfFile and hands its
// views to the signature verifier, the form and DocMDP readers, the DSS reader and the
// modification analysis; @libpdf/core (the writer) does not parse the file at all.

let identity: SigningIdentity;
let threeSignatures: Buffer;

beforeAll(async () => {
  identity = await generateIdentity({ keyType: "EC" });
  let pdf = await makePdf(2);
  for (const signerName of ["Ada Lovelace", "Grace Hopper", "Edsger Dijkstra"]) {
    pdf = await signPdf(pdf, { identity, signingTime: new Date("2026-11-22T10:00:00Z"), signerName, reason: "r" });
  }
  threeSignatures = pdf;
}, 60_000);

afterEach(() => {
  vi.restoreAllMocks();
});

const deps = {
  fetcher: { fetch: () => Promise.reject(new Error("no fetch")) },
  limits: { maxDocumentBytes: 25 * 1024 * 1024, maxEntries: 5000, maxUncompressedBytes: 200 * 1024 * 1024 },
  trust: async () => ({ anchors: [identity.certificate] }),
};

describe("POST /v1/verify parses the file once", () => {
  it("a 3-signature PDF: one PdfFile, no libpdf parse, every signature checked and analysed", async () => {
    const libpdfLoads = vi.spyOn(PDF, "load");
    const before = PdfFile.parses;
    const report = await verifyDocument({ bytes: threeSignatures }, deps);
    expect(PdfFile.parses - before).toBe(1);
    expect(libpdfLoads).not.toHaveBeenCalled();
    expect(report.valid, report.reason).toBe(true);
    expect(report.signatures.map((signature) => [signature.signerName, signature.integrity, signature.modificationLevel])).toEqual([
      ["Ada Lovelace", "ok", "form_filling"],
      ["Grace Hopper", "ok", "form_filling"],
      ["Edsger Dijkstra", "ok", "none"],
    ]);
    expect(report.document.pages).toBe(2);
  }, 30_000);
});
