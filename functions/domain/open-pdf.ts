import { PDF } from "@libpdf/core";
import { SignetError } from "#domain/errors.ts";

/** OpenedPdf is a parsed PDF and its page count, read once. */
export interface OpenedPdf {
  pdf: PDF;
  pages: number;
}

/** looksEncrypted tells whether a trailer (or xref stream dictionary) names an /Encrypt dictionary. */
function looksEncrypted(bytes: Uint8Array): boolean {
  return /\/Encrypt\s*(?:\d+\s+\d+\s+R|<<)/.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1"));
}

/**
 * openPdf parses a PDF for signing or verification: a password-protected or encrypted file is
 * ENCRYPTED_DOCUMENT, a file that cannot be parsed or whose page tree cannot be read is
 * INVALID_DOCUMENT, each with a message that says what to do.
 */
export async function openPdf(bytes: Uint8Array): Promise<OpenedPdf> {
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (error) {
    if (looksEncrypted(bytes) || /encrypt|password|decrypt/i.test(String((error as Error)?.message))) {
      throw new SignetError("ENCRYPTED_DOCUMENT", "The PDF is password-protected; remove the password and send it again.", { cause: error });
    }
    throw new SignetError("INVALID_DOCUMENT", "The PDF could not be read; it looks damaged. Open and re-save it, then send it again.", { cause: error });
  }
  if (pdf.isEncrypted) throw new SignetError("ENCRYPTED_DOCUMENT", "The PDF is encrypted; remove the password or protection and send it again.");
  let pages: number;
  try {
    pages = pdf.getPageCount();
  } catch (error) {
    throw new SignetError("INVALID_DOCUMENT", "The PDF's page tree could not be read; re-save it, then send it again.", { cause: error });
  }
  return { pdf, pages };
}
