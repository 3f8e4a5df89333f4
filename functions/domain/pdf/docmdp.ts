import { PdfArray, type PdfDict, PdfNumber, PdfRef } from "@libpdf/core";
import { deref, dictAt, type PdfView } from "#domain/pdf/pdf-file.ts";

/** DocMdpPermission is what a certification allows after it: 1 no changes, 2 form filling and signing, 3 also annotations. */
export type DocMdpPermission = 1 | 2 | 3;

/** Certification is a document's certification signature, as the catalog's /Perms /DocMDP names it (ISO 32000-1 12.8.2.2). */
export interface Certification {
  /** The signature dictionary's reference (a field's /V must be this very reference to be the certification). */
  ref: PdfRef | undefined;
  dict: PdfDict;
  permission: DocMdpPermission;
}

/**
 * docMdpPermission is the one clamping rule: the P of a DocMDP transform's parameters when it is
 * 1, 2 or 3, else 2 (the standard's default; a missing or unknown P permits form filling).
 */
function docMdpPermission(view: PdfView, signature: PdfDict): DocMdpPermission {
  const references = deref(view, signature.get("Reference"));
  if (!(references instanceof PdfArray)) return 2;
  for (const item of references.toArray()) {
    const reference = dictAt(view, item);
    if (reference?.getName("TransformMethod")?.value !== "DocMDP") continue;
    const p = dictAt(view, reference.get("TransformParams"))?.get("P");
    const value = p instanceof PdfRef ? view.resolve(p) : p;
    return value instanceof PdfNumber && (value.value === 1 || value.value === 2 || value.value === 3) ? value.value : 2;
  }
  return 2;
}

/**
 * readCertification reads the certification of a revision: the signature dictionary the catalog's
 * /Perms /DocMDP names and its permission (docMdpPermission), or undefined when the document is
 * not certified. Only that dictionary certifies: a DocMDP /Reference in any other signature
 * dictionary (one an attacker added, say) permits nothing.
 */
export function readCertification(view: PdfView): Certification | undefined {
  const perms = dictAt(view, view.catalog.get("Perms"));
  const value = perms?.get("DocMDP");
  const dict = dictAt(view, value);
  if (!dict) return undefined;
  return { ref: value instanceof PdfRef ? value : undefined, dict, permission: docMdpPermission(view, dict) };
}
