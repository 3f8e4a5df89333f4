// A certification signature (ISO 32000-1 12.8.2.2, DocMDP): the first signature of a document,
// naming in its own dictionary what later changes it permits, and named by the catalog's /Perms.
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfRef } from "@libpdf/core";
import type { DocMdpPermission } from "#domain/pdf/docmdp.ts";
import { SignetError } from "#domain/shared/errors.ts";

/**
 * docMdpReference is the signature dictionary's /Reference for a certification with permission P:
 * one signature reference dictionary with the DocMDP transform and its parameters (/V /1.2, the
 * only version the standard defines).
 */
export function docMdpReference(permission: DocMdpPermission): PdfArray {
  const params = PdfDict.of({ Type: PdfName.of("TransformParams"), P: PdfNumber.of(permission), V: PdfName.of("1.2") });
  return new PdfArray([PdfDict.of({ Type: PdfName.of("SigRef"), TransformMethod: PdfName.of("DocMDP"), TransformParams: params })]);
}

/** declareCertification names the signature dictionary in the catalog's /Perms /DocMDP (an existing /Perms, with /UR3 say, keeps its entries). */
export function declareCertification(pdf: PDF, signature: PdfRef): void {
  const catalog = pdf.getCatalog();
  const perms = catalog.getDict("Perms", (ref: PdfRef) => pdf.getObject(ref));
  if (perms) perms.set("DocMDP", signature);
  else catalog.set("Perms", PdfDict.of({ DocMDP: signature }));
}

/** certificationNotFirst is the refusal to certify a document that already holds a signature or a certification. */
export function certificationNotFirst(): SignetError {
  return new SignetError(
    "CERTIFICATION_NOT_FIRST",
    "The document already holds a signature: a certification (certify) must be its first signature. Sign it without certify, or certify the document before anyone signs it.",
    { details: [{ field: "certify", issue: "only on a document without signatures" }] },
  );
}
