import { PDF, PdfDict } from "@libpdf/core";
import { SignetError } from "#domain/shared/errors.ts";
import { prepareEncryptedUpdate, rebaseOnto } from "#domain/pdf/libpdf-internals.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import { DEFAULT_MAX_PDF_PAGES, PdfFile } from "#domain/pdf/pdf-file.ts";
import { RevisionError } from "#domain/pdf/revisions.ts";
import type { VerifyLimits } from "#domain/pdf/verify-limits.ts";
import { withReadableXref } from "#domain/pdf/readable-xref.ts";
import { unlockPdfFile } from "#domain/pdf/encryption.ts";

// libpdf 0.4.2 (XRefParser.parseStream) refuses cross-reference stream fields wider than this.
const MAX_LIBPDF_FIELD_WIDTH = 6;

/** tooManyPages is the 413 for a PDF with more pages than Signet accepts. */
function tooManyPages(pages: number, max: number): SignetError {
  return new SignetError("PAYLOAD_TOO_LARGE", `The PDF has ${pages} pages; Signet accepts at most ${max}. Split the document.`, {
    details: [{ field: "document", issue: `at most ${max} pages` }],
  });
}

const encryptedError = (cause?: unknown) =>
  new SignetError("ENCRYPTED_DOCUMENT", "The PDF is password-protected; remove the password and send it again.", cause === undefined ? {} : { cause });

const damagedError = (cause: unknown) =>
  new SignetError("INVALID_DOCUMENT", "The PDF could not be read; it looks damaged. Open and re-save it, then send it again.", { cause });

/** OpenOptions bound one parse: the verify limits and the page limit (SIGNET_MAX_PDF_PAGES); the password of an encrypted file. */
export interface OpenOptions {
  limits?: VerifyLimits | undefined;
  maxPages?: number | undefined;
  password?: string | undefined;
}

/**
 * checkOpenable opens an encrypted file with its password (encryption.ts: ENCRYPTED_DOCUMENT without
 * one that opens it, WRONG_PASSWORD) and refuses more than `maxPages` pages (413; the root's declared
 * /Count first, before any walk, then the pages the walk counts, stopping one past the limit) and an
 * unreadable page tree.
 */
function checkOpenable(file: PdfFile, maxPages: number, password: string | undefined): void {
  try {
    unlockPdfFile(file, password);
  } catch (error) {
    if (error instanceof RevisionError)
      throw new SignetError("INVALID_DOCUMENT", "The PDF's encryption dictionary could not be read; it looks damaged.", { cause: error });
    throw error;
  }
  try {
    if (file.declaredPageCount > maxPages) throw tooManyPages(file.declaredPageCount, maxPages);
    if (file.pageCount > maxPages) throw tooManyPages(file.pageCount, maxPages);
  } catch (error) {
    if (error instanceof RevisionError)
      throw new SignetError("INVALID_DOCUMENT", "The PDF's page tree could not be read; re-save it, then send it again.", { cause: error });
    throw error;
  }
}

/**
 * openPdfFile parses a PDF once (PdfFile) for reading: a verify limit over is 422 naming it, a
 * cross-reference chain that does not read as written is INVALID_DOCUMENT (damaged), and
 * checkOpenable's refusals. Verification reads everything through it.
 */
export function openPdfFile(bytes: Buffer, options: OpenOptions = {}): PdfFile {
  const maxPages = options.maxPages ?? DEFAULT_MAX_PDF_PAGES;
  let file: PdfFile;
  try {
    file = new PdfFile(bytes, { limits: options.limits, maxPages });
  } catch (error) {
    if (error instanceof RevisionError) throw damagedError(error);
    throw error;
  }
  checkOpenable(file, maxPages, options.password);
  return file;
}

/**
 * readPdfFile is openPdfFile for the signer, which can repair: undefined when the chain does not
 * read as written (the signer then lets libpdf rebuild the file and reads the rewrite).
 */
export function readPdfFile(bytes: Buffer, maxPages = DEFAULT_MAX_PDF_PAGES, password?: string): PdfFile | undefined {
  let file: PdfFile;
  try {
    file = new PdfFile(bytes, { maxPages });
  } catch (error) {
    if (error instanceof RevisionError) return undefined;
    throw error;
  }
  checkOpenable(file, maxPages, password);
  return file;
}

/**
 * loadThroughOwnXref handles a file libpdf could not read as written (it threw, or rebuilt the file
 * by brute force): a legal chain libpdf refuses (cross-reference stream fields wider than its
 * 6-byte limit) is parsed through a view rebuilt from the PdfFile; anything else keeps libpdf's
 * answer (the recovered document, or the failure: encrypted or damaged).
 */
async function loadThroughOwnXref(bytes: Buffer, file: PdfFile | undefined, failure: unknown, recovered?: PDF): Promise<PDF> {
  if (failure && /encrypt|password|decrypt/i.test(String((failure as Error)?.message))) throw encryptedError(failure);
  if (file && file.widestField > MAX_LIBPDF_FIELD_WIDTH) {
    try {
      const pdf = await PDF.load(withReadableXref(file));
      if (!pdf.recoveredViaBruteForce) {
        rebaseOnto(pdf, bytes, file.startxref, file.newestIsStream);
        return pdf;
      }
    } catch {
      // Fall through to libpdf's own answer.
    }
  }
  if (recovered) return recovered;
  throw damagedError(failure);
}

/** signatureDictionaries are the file's signature dictionaries as Signet decrypted them (/Contents in the clear), by "number generation". */
function signatureDictionaries(file: PdfFile): Map<string, PdfDict> {
  const found = new Map<string, PdfDict>();
  for (const { signature } of readForm(file.latest).fields) {
    if (signature?.ref) found.set(`${signature.ref.objectNumber} ${signature.ref.generation}`, new PdfDict(signature.dict));
  }
  return found;
}

/**
 * loadForWriting parses a PDF with @libpdf/core, the writer, for an incremental update. What the
 * signer knows about the input comes from its PdfFile (`file`, undefined when the chain does not
 * read as written: then libpdf's own repair, the page count it walks, and its encryption flag).
 */
export async function loadForWriting(bytes: Buffer, file: PdfFile | undefined, maxPages = DEFAULT_MAX_PDF_PAGES, password?: string): Promise<PDF> {
  let pdf: PDF;
  try {
    pdf = await PDF.load(bytes, password ? { credentials: password } : {});
  } catch (error) {
    pdf = await loadThroughOwnXref(bytes, file, error);
  }
  if (pdf.recoveredViaBruteForce) pdf = await loadThroughOwnXref(bytes, file, undefined, pdf);
  // The PdfFile opened an encrypted file with this password (encryption.ts); libpdf must have too.
  if (pdf.isEncrypted && (!file?.encrypted || !pdf.isAuthenticated)) throw encryptedError();
  if (pdf.isEncrypted && file) prepareEncryptedUpdate(pdf, signatureDictionaries(file));
  if (!file) {
    let pages: number;
    try {
      pages = pdf.getPageCount();
    } catch (error) {
      throw new SignetError("INVALID_DOCUMENT", "The PDF's page tree could not be read; re-save it, then send it again.", { cause: error });
    }
    if (pages > maxPages) throw tooManyPages(pages, maxPages);
  }
  return pdf;
}
