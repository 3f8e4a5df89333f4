// The one rule of the PDF tools for signed input (issue 40, item 6): a change a signature does not
// permit is refused with 409 WOULD_INVALIDATE_SIGNATURES naming the signatures, unless the caller
// asked to drop them; then they are removed and the answer names them.
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfObject, PdfRef, PdfString } from "@libpdf/core";
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
    { details: names.map((name) => ({ field: "document", issue: `signed signature field "${name}"` })) },
  );
}

/**
 * dropSignatures removes what makes the writer's copy signed: each signed field's /V (the field
 * stays, unsigned, so its widget and the form keep their shape), the catalog's /Perms (the
 * certification) and /AcroForm /SigFlags. The caller saves the document whole afterwards: the old
 * signed bytes are gone. Returns the names of the removed signatures.
 */
export function dropSignatures(pdf: PDF, file: PdfFile): string[] {
  const names = signedSignatures(file).map((signature) => signature.field);
  removeSignatures(pdf, names);
  return names;
}

/** DROPPED_SIGNATURES_HEADER names the signatures a tool removed (dropSignatures: true), comma-separated and percent-encoded. */
const DROPPED_SIGNATURES_HEADER = "Signet-Dropped-Signatures";

/** SignatureGuardRequest is what a tool asks of the guard: may it drop signatures, and which request member holds the document. */
export interface SignatureGuardRequest {
  dropSignatures?: boolean | undefined;
  /** The request member the document came in (`document`, `documents.1.document`): the error's details name it. */
  field: string;
}

/**
 * guardSignatures is the check every rewriting tool makes before it works on `file`: no signed
 * signature, nothing to do (an empty list); signed and dropSignatures not set, 409
 * WOULD_INVALIDATE_SIGNATURES naming each; otherwise the names to remove (removeSignatures).
 */
export function guardSignatures(file: PdfFile, request: SignatureGuardRequest): string[] {
  const names = signedSignatures(file).map((signature) => signature.field);
  if (names.length === 0 || request.dropSignatures === true) return names;
  const list = names.map((name) => `"${name}"`).join(", ");
  throw new SignetError(
    "WOULD_INVALIDATE_SIGNATURES",
    `${request.field} is signed (${list}); this operation rewrites the document and would invalidate ${names.length === 1 ? "that signature" : "those signatures"}. Send "dropSignatures": true to remove the signatures and go on, or sign again afterwards.`,
    { details: names.map((name) => ({ field: request.field, issue: `signed signature field "${name}"` })) },
  );
}

/** droppedSignaturesHeader is the answer header naming the removed signatures (none when nothing was removed). */
export function droppedSignaturesHeader(names: readonly string[]): Record<string, string> {
  return names.length === 0 ? {} : { [DROPPED_SIGNATURES_HEADER]: names.map((name) => encodeURIComponent(name)).join(",") };
}

// Deeper than real field trees nest (a few levels); bounds the walk as acroform.ts does.
const MAX_DEPTH = 32;

function resolved(pdf: PDF, value: PdfObject | undefined): PdfObject | undefined {
  return value instanceof PdfRef ? (pdf.getObject(value) ?? undefined) : value;
}

/** partialName is a field's /T as text (empty when absent). */
function partialName(pdf: PDF, dict: PdfDict): string {
  const t = resolved(pdf, dict.get("T"));
  return t instanceof PdfString ? t.asString() : "";
}

/** blankAppearance makes the widget show nothing: one empty form XObject as its normal appearance. */
function blankAppearance(widget: PdfDict, empty: () => PdfRef): void {
  if (!widget.has("AP")) return;
  widget.set("AP", PdfDict.of({ N: empty() }));
}

/**
 * removeSignatures turns the named signed signature fields of a libpdf document into empty
 * signature fields (no /V, blank widgets; the field, its name and its place stay, ready to be
 * signed again) and removes the catalog's /Perms (the certification) and the form's /SigFlags. It works on the document in memory, before a
 * tool rewrites it. Returns the names it found and cleared.
 */
export function removeSignatures(pdf: PDF, names: readonly string[]): string[] {
  const wanted = new Set(names);
  const cleared: string[] = [];
  if (wanted.size === 0) return cleared;
  // A certification without a field of its own ("(certification)") goes with /Perms below.
  let blank: PdfRef | undefined;
  const empty = () =>
    (blank ??= pdf.createStream(
      { Type: PdfName.of("XObject"), Subtype: PdfName.of("Form"), BBox: PdfArray.of(PdfNumber.of(0), PdfNumber.of(0), PdfNumber.of(0), PdfNumber.of(0)) },
      new Uint8Array(),
    ));
  const visit = (value: PdfObject | undefined, parentName: string, fieldType: string | undefined, depth: number): void => {
    const dict = resolved(pdf, value);
    if (!(dict instanceof PdfDict) || depth > MAX_DEPTH) return;
    const own = partialName(pdf, dict);
    const name = own === "" ? parentName : parentName === "" ? own : `${parentName}.${own}`;
    const type = dict.getName("FT")?.value ?? fieldType;
    const kids = resolved(pdf, dict.get("Kids"));
    const fieldKids =
      kids instanceof PdfArray ? kids.toArray().filter((kid) => resolved(pdf, kid) instanceof PdfDict && (resolved(pdf, kid) as PdfDict).has("T")) : [];
    for (const kid of fieldKids) visit(kid, name, type, depth + 1);
    if (type !== "Sig" || !dict.has("V") || !wanted.has(name)) return;
    dict.delete("V");
    dict.delete("Lock");
    blankAppearance(dict, empty);
    if (kids instanceof PdfArray)
      for (const kid of kids.toArray()) {
        const widget = resolved(pdf, kid);
        if (widget instanceof PdfDict && !widget.has("T")) blankAppearance(widget, empty);
      }
    cleared.push(name);
  };
  const acroForm = resolved(pdf, pdf.getCatalog().get("AcroForm"));
  const fields = acroForm instanceof PdfDict ? resolved(pdf, acroForm.get("Fields")) : undefined;
  if (fields instanceof PdfArray) for (const field of fields.toArray()) visit(field, "", undefined, 0);
  if (acroForm instanceof PdfDict) acroForm.delete("SigFlags");
  pdf.getCatalog().delete("Perms");
  return cleared;
}
