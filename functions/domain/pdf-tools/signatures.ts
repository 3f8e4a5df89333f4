import type { PDF } from "@libpdf/core";
import { SignetError } from "#domain/shared/errors.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import { readCertification } from "#domain/pdf/docmdp.ts";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
import { signatureDictOf } from "#domain/pdf/libpdf-internals.ts";

/** signedSignatures names the signed signature fields of a file's latest revision (its certification counts too). */
function signedSignatures(file: PdfFile): string[] {
  const names = readForm(file.latest)
    .fields.filter((field) => field.signed)
    .map((field) => field.name);
  if (names.length === 0 && readCertification(file.latest) !== undefined) names.push("(certification)");
  return names;
}

/**
 * guardSignatures refuses (409 WOULD_INVALIDATE_SIGNATURES, naming them) an operation that rewrites
 * a signed file, unless the caller said dropSignatures: then it returns the names to remove.
 */
export function guardSignatures(file: PdfFile, operation: string, dropSignatures: boolean | undefined): string[] {
  const names = signedSignatures(file);
  if (names.length > 0 && !dropSignatures) {
    throw new SignetError(
      "WOULD_INVALIDATE_SIGNATURES",
      `${operation} rewrites the whole file, which would invalidate its signature${names.length > 1 ? "s" : ""} ${names.map((name) => `"${name}"`).join(", ")}. Send "dropSignatures": true to remove them and go on.`,
      { details: names.map((name) => ({ field: "dropSignatures", issue: `signature "${name}" would be invalidated` })) },
    );
  }
  return names;
}

/** dropSignatureValues removes the signature values (/V) of signed fields and the certification (/Perms): the fields stay, empty. */
export function dropSignatureValues(pdf: PDF): void {
  for (const field of pdf.getForm()?.getFields() ?? []) {
    if (signatureDictOf(field)) field.getDict().delete("V");
  }
  pdf.getCatalog().delete("Perms");
}
