import { PDF } from "@libpdf/core";
import { resolveDocument, type DocumentLimits } from "#domain/shared/document.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { loadForWriting, openPdfFile } from "#domain/pdf/open-pdf.ts";
import { checkMayChange } from "#domain/pdf-tools/permissions.ts";
import { dropSignatures, signedSignatures, wouldInvalidate } from "#domain/pdf-tools/signatures.ts";

/** PdfPermissions are what a user-password reader may do with a protected PDF (ISO 32000-2 table 22); each defaults to allowed. */
export interface PdfPermissions {
  print?: boolean | undefined;
  printHighQuality?: boolean | undefined;
  modify?: boolean | undefined;
  copy?: boolean | undefined;
  annotate?: boolean | undefined;
  fillForms?: boolean | undefined;
  accessibility?: boolean | undefined;
  assemble?: boolean | undefined;
}

/** DocumentIn is a document member as the routes pass it: base64, url or bytes, and the password of an encrypted input. */
type DocumentIn = { base64?: string | undefined; url?: string | undefined; bytes?: Buffer | undefined; password?: string | undefined };

/** ProtectInput is a validated POST /v1/protect request (docs/api.md, "Passwords"). */
export interface ProtectInput {
  document: DocumentIn;
  /** Opens the file (empty or absent: anyone may open it, the permissions still apply). */
  userPassword?: string | undefined;
  ownerPassword: string;
  permissions?: PdfPermissions | undefined;
  dropSignatures?: boolean | undefined;
}

/** UnprotectInput is a validated POST /v1/unprotect request. */
export interface UnprotectInput {
  document: DocumentIn;
  dropSignatures?: boolean | undefined;
}

/** PdfToolDependencies are what the password routes use: the fetcher for URLs and the document limits. */
export interface PdfToolDependencies {
  fetcher: Fetcher;
  limits: DocumentLimits;
}

/** RewriteResult is a rewritten PDF and the signatures the rewrite removed (at the caller's request). */
export interface RewriteResult {
  pdf: Buffer;
  droppedSignatures: string[];
}

/**
 * openForRewrite resolves and opens a PDF (its password: encryption.ts), refuses to rewrite a
 * signed one unless dropSignatures (then the signatures are removed), and, for an encrypted input,
 * requires owner access or the modify permission (what libpdf and Acrobat ask to remove a password).
 */
async function openForRewrite(input: ProtectInput | UnprotectInput, what: { operation: string; change: string }, deps: PdfToolDependencies) {
  const document = await resolveDocument(input.document, ["pdf"], deps);
  const maxPages = deps.limits.maxPdfPages;
  const file = openPdfFile(document.bytes, { maxPages, password: input.document.password });
  const signed = signedSignatures(file);
  if (signed.length > 0 && !input.dropSignatures) throw wouldInvalidate(signed, what.operation);
  const pdf = await loadForWriting(document.bytes, file, maxPages, input.document.password);
  checkMayChange(pdf, what.change);
  return { pdf, droppedSignatures: signed.length > 0 ? dropSignatures(pdf, file) : [] };
}

/** unprotectDocument runs POST /v1/unprotect: the PDF saved without encryption (a full rewrite). */
export async function unprotectDocument(input: UnprotectInput, deps: PdfToolDependencies): Promise<RewriteResult> {
  const { pdf, droppedSignatures } = await openForRewrite(
    input,
    { operation: "removing the password (a whole rewrite)", change: "removes its password" },
    deps,
  );
  if (pdf.isEncrypted) pdf.removeProtection();
  return { pdf: Buffer.from(await pdf.save()), droppedSignatures };
}

/**
 * protectDocument runs POST /v1/protect: the PDF rewritten encrypted with AES-256 (revision 6, the
 * only cipher Signet writes), the user and owner passwords and the permissions. An encrypted input
 * is decrypted first (its owner password, or the modify permission) and encrypted anew.
 */
export async function protectDocument(input: ProtectInput, deps: PdfToolDependencies): Promise<RewriteResult> {
  let { pdf, droppedSignatures } = await openForRewrite(input, { operation: "protecting the PDF (a whole rewrite)", change: "changes its protection" }, deps);
  if (pdf.isEncrypted) {
    // libpdf changes an encrypted file's protection only with owner access: decrypt, then protect the plain file.
    pdf.removeProtection();
    pdf = await PDF.load(await pdf.save());
  }
  pdf.setProtection({
    userPassword: input.userPassword ?? "",
    ownerPassword: input.ownerPassword,
    // An absent permission is allowed (libpdf would read an undefined one as denied).
    permissions: Object.fromEntries(Object.entries(input.permissions ?? {}).filter(([, allowed]) => allowed !== undefined)),
    algorithm: "AES-256",
  });
  return { pdf: Buffer.from(await pdf.save()), droppedSignatures };
}
