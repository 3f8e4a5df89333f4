import { PDF } from "@libpdf/core";
import { readPageTree } from "#domain/pdf/page-tree.ts";
import { openPdfFile, type OpenOptions } from "#domain/pdf/open-pdf.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { type FormListing, listForm } from "#domain/pdf-forms/list-form.ts";
import { writerView } from "#domain/pdf-forms/writer-view.ts";

/**
 * listPdfForm answers POST /v1/annotate/fields for a PDF: one parse (PdfFile) and its latest
 * revision's form. A file encrypted with an owner password only (an empty user password, as many
 * government forms are) opens for reading: Signet's parser does not decrypt, so its form is read
 * from the writer's decrypted parse instead. A file that needs a user password is ENCRYPTED_DOCUMENT.
 */
export async function listPdfForm(bytes: Buffer, options: OpenOptions = {}): Promise<FormListing> {
  try {
    const file = openPdfFile(bytes, options);
    return listForm(file.latest, file.pageTree);
  } catch (error) {
    if (!(error instanceof SignetError && error.code === "ENCRYPTED_DOCUMENT")) throw error;
  }
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (error) {
    throw new SignetError("ENCRYPTED_DOCUMENT", "The PDF is password-protected; remove the password and send it again.", { cause: error });
  }
  if (!pdf.isAuthenticated) throw new SignetError("ENCRYPTED_DOCUMENT", "The PDF needs a password to open; remove the password and send it again.");
  const view = writerView(pdf);
  return listForm(view, readPageTree(view, options.maxPages));
}
