// The PDF tools' signature guard (issue 40, item 6) on real signatures: pyHanko signs, the guard
// names the signed field, refuses with 409 WOULD_INVALIDATE_SIGNATURES unless dropSignatures, and
// removeSignatures leaves an empty signature field (no /V, blank widget) that no reader calls signed.
import { PDF } from "@libpdf/core";
import { describe, expect, it } from "vitest";
import { openPdfFile } from "#domain/pdf/open-pdf.ts";
import { droppedSignaturesHeader, guardSignatures, removeSignatures, signedSignatures } from "#domain/pdf-tools/signatures.ts";
import { signWithPyhanko } from "#test/helpers/other-signers.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { pdfsig } from "#test/helpers/pdf-tools.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";

const signed = signWithPyhanko(await makePdf(2, { classicXref: true }), { field: "Approval" });

describe("the signature guard", () => {
  it("names the signed signature fields of the latest revision", () => {
    expect(signedSignatures(openPdfFile(signed))).toEqual([{ field: "Approval" }]);
    expect(signedSignatures(openPdfFile(Buffer.from(signed.subarray(0, signed.indexOf("%%EOF") + 6))))).toEqual([]);
  });

  it("refuses a rewrite of a signed PDF with 409 naming each signature, unless dropSignatures", async () => {
    const error = await expectSignetError(
      Promise.resolve().then(() => guardSignatures(openPdfFile(signed), { field: "documents.1.document" })),
      "WOULD_INVALIDATE_SIGNATURES",
    );
    expect(error.details).toEqual([{ field: "documents.1.document", issue: 'signed signature field "Approval"' }]);
    expect(error.message).toContain('"dropSignatures": true');
    expect(guardSignatures(openPdfFile(signed), { field: "document", dropSignatures: true })).toEqual(["Approval"]);
    expect(droppedSignaturesHeader(["Approval", "Zeichnung Müller"])).toEqual({ "Signet-Dropped-Signatures": "Approval,Zeichnung%20M%C3%BCller" });
    expect(droppedSignaturesHeader([])).toEqual({});
  });

  it("removeSignatures leaves an empty signature field that pdfsig reports as not signed", async () => {
    const pdf = await PDF.load(signed);
    expect(removeSignatures(pdf, ["Approval"])).toEqual(["Approval"]);
    const rewritten = Buffer.from(await pdf.save());
    expect(signedSignatures(openPdfFile(rewritten))).toEqual([]);
    const report = await pdfsig(rewritten);
    expect(report.map((entry) => entry.valid)).toEqual([false]);
    expect(JSON.stringify(report)).toContain("The signature form field is not signed.");
    const field = (await PDF.load(rewritten))
      .getForm()!
      .getFields()
      .find((item) => item.name === "Approval");
    expect(field?.type).toBe("signature");
  });
});
