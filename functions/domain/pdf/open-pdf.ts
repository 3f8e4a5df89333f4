import { PDF } from "@libpdf/core";
import { SignetError } from "#domain/shared/errors.ts";
import { rebaseOnto } from "#domain/pdf/libpdf-internals.ts";
import { readXrefChain, withReadableXref } from "#domain/pdf/xref-chain.ts";

// libpdf 0.4.2 (XRefParser.parseStream) refuses cross-reference stream fields wider than this.
const MAX_LIBPDF_FIELD_WIDTH = 6;

/** OpenedPdf is a parsed PDF and its page count, read once. */
export interface OpenedPdf {
  pdf: PDF;
  pages: number;
}

/** DEFAULT_MAX_PDF_PAGES is the page limit when none is configured (SIGNET_MAX_PDF_PAGES). */
const DEFAULT_MAX_PDF_PAGES = 10_000;

/** tooManyPages is the 413 for a PDF with more pages than Signet accepts. */
export function tooManyPages(pages: number, max: number): SignetError {
  return new SignetError("PAYLOAD_TOO_LARGE", `The PDF has ${pages} pages; Signet accepts at most ${max}. Split the document.`, {
    details: [{ field: "document", issue: `at most ${max} pages` }],
  });
}

const PAGES = Buffer.from("/Pages", "latin1");

/**
 * declaredPageCount is the largest /Count of a /Type /Pages dictionary visible in the bytes (not
 * inside object streams): a cheap look before parsing, searching bytes rather than a 25 MB string.
 */
function declaredPageCount(bytes: Uint8Array): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let largest = 0;
  for (let at = buffer.indexOf(PAGES); at >= 0; at = buffer.indexOf(PAGES, at + PAGES.length)) {
    const around = buffer.subarray(Math.max(0, at - 512), at + 512).toString("latin1");
    if (!/\/Type\s*\/Pages\b/.test(around)) continue;
    for (const count of around.matchAll(/\/Count\s+(\d{1,12})/g)) largest = Math.max(largest, Number(count[1]));
  }
  return largest;
}

/** looksEncrypted tells whether a trailer (or xref stream dictionary) names an /Encrypt dictionary. */
function looksEncrypted(bytes: Uint8Array): boolean {
  return /\/Encrypt\s*(?:\d+\s+\d+\s+R|<<)/.test(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1"));
}

const encryptedError = (cause?: unknown) =>
  new SignetError("ENCRYPTED_DOCUMENT", "The PDF is password-protected; remove the password and send it again.", cause === undefined ? {} : { cause });

/**
 * loadThroughOwnXref handles a file libpdf could not read as written (it threw, or rebuilt the file
 * by brute force): a trailer naming /Encrypt is ENCRYPTED_DOCUMENT; a legal chain libpdf refuses
 * (cross-reference stream fields wider than its 6-byte limit) is read by Signet's reader and parsed
 * through a view; anything else keeps libpdf's answer (the recovered document, or the failure).
 */
async function loadThroughOwnXref(bytes: Uint8Array, failure: unknown, recovered?: PDF): Promise<PDF> {
  const chain = readXrefChain(bytes);
  if (chain?.trailer.encrypted || looksEncrypted(bytes) || (failure && /encrypt|password|decrypt/i.test(String((failure as Error)?.message)))) {
    throw encryptedError(failure);
  }
  if (chain && chain.widestField > MAX_LIBPDF_FIELD_WIDTH) {
    try {
      const pdf = await PDF.load(withReadableXref(bytes, chain));
      if (!pdf.recoveredViaBruteForce) {
        rebaseOnto(pdf, bytes, chain.startxref, chain.newestIsStream);
        return pdf;
      }
    } catch {
      // Fall through to libpdf's own answer.
    }
  }
  if (recovered) return recovered;
  throw new SignetError("INVALID_DOCUMENT", "The PDF could not be read; it looks damaged. Open and re-save it, then send it again.", { cause: failure });
}

/**
 * openPdf parses a PDF for signing or verification: more than `maxPages` pages is
 * PAYLOAD_TOO_LARGE (413, naming the limit), a password-protected or encrypted file is
 * ENCRYPTED_DOCUMENT, a file that cannot be parsed or whose page tree cannot be read is
 * INVALID_DOCUMENT, each with a message that says what to do.
 */
export async function openPdf(bytes: Uint8Array, maxPages = DEFAULT_MAX_PDF_PAGES): Promise<OpenedPdf> {
  // Checked before parsing: libpdf walks the whole page tree on load (8 s for 200,000 pages).
  const declared = declaredPageCount(bytes);
  if (declared > maxPages) throw tooManyPages(declared, maxPages);
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes);
  } catch (error) {
    pdf = await loadThroughOwnXref(bytes, error);
  }
  if (pdf.recoveredViaBruteForce) pdf = await loadThroughOwnXref(bytes, undefined, pdf);
  if (pdf.isEncrypted) throw new SignetError("ENCRYPTED_DOCUMENT", "The PDF is encrypted; remove the password or protection and send it again.");
  let pages: number;
  try {
    pages = pdf.getPageCount();
  } catch (error) {
    throw new SignetError("INVALID_DOCUMENT", "The PDF's page tree could not be read; re-save it, then send it again.", { cause: error });
  }
  if (pages > maxPages) throw tooManyPages(pages, maxPages);
  return { pdf, pages };
}
