// The one rule of the PDF tools for signed input (issue 40, item 6): a change a signature does not
// permit is refused with 409 WOULD_INVALIDATE_SIGNATURES naming the signatures, unless the caller
// asked to drop them; then they are removed and the answer names them.
import { type PDF, PdfDict, PdfRef } from "@libpdf/core";
import { readCertification, type DocMdpPermission } from "#domain/pdf/docmdp.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
import { SignetError } from "#domain/shared/errors.ts";

/** SignedSignature is one signature a document holds: its field's name, and its certification permission when it certifies. */
export interface SignedSignature {
  field: string;
  /** The DocMDP permission when this signature is the document's certification. */
  certifies?: DocMdpPermission | undefined;
}

/** signedSignatures lists the signed signature fields of the latest revision (the certification marked). */
export function signedSignatures(file: PdfFile): SignedSignature[] {
  const certification = readCertification(file.latest);
  const signed = readForm(file.latest).fields.filter((field) => field.signed);
  const list = signed.map((field) => {
    const ref = field.signature?.ref;
    const certifies = certification && ref && certification.ref && ref.objectNumber === certification.ref.objectNumber ? certification.permission : undefined;
    return { field: field.name, ...(certifies ? { certifies } : {}) };
  });
  // A certification the catalog names without a field listing it still binds the document.
  if (certification && !list.some((item) => item.certifies)) list.push({ field: "(certification)", certifies: certification.permission });
  return list;
}

/** wouldInvalidate is the 409 for a change the signatures do not permit, naming them and what to send instead. */
export function wouldInvalidate(signatures: SignedSignature[], change: string): SignetError {
  const names = signatures.map((signature) => signature.field);
  const count = `${names.length} signature${names.length === 1 ? "" : "s"}`;
  return new SignetError(
    "WOULD_INVALIDATE_SIGNATURES",
    `The PDF holds ${count} (${names.join(", ")}) that ${change} would invalidate; send "dropSignatures": true to remove them, or ask for a change the signatures permit.`,
    { details: [{ field: "document", issue: `signed: ${names.join(", ")}` }] },
  );
}

/**
 * dropSignatures removes what makes the writer's copy signed: each signed field's /V (the field
 * stays, unsigned, so its widget and the form keep their shape), the catalog's /Perms (the
 * certification) and /AcroForm /SigFlags. The caller saves the document whole afterwards: the old
 * signed bytes are gone. Returns the names of the removed signatures.
 */
export function dropSignatures(pdf: PDF, file: PdfFile): string[] {
  const signed = readForm(file.latest).fields.filter((field) => field.signed);
  for (const field of signed) {
    const dict = field.ref ? pdf.getObject(field.ref) : undefined;
    if (dict instanceof PdfDict) {
      dict.delete("V");
      dict.delete("Lock");
    }
  }
  const catalog = pdf.getCatalog();
  catalog.delete("Perms");
  const form = catalog.get("AcroForm");
  const formDict = form instanceof PdfRef ? pdf.getObject(form) : form;
  if (formDict instanceof PdfDict) formDict.delete("SigFlags");
  return signedSignatures(file).map((signature) => signature.field);
}
