import type { PDF } from "@libpdf/core";
import type { Converter } from "#domain/documents/converter.ts";
import { type IntakeLimits, intake } from "#domain/documents/intake.ts";
import { signatureDictOf } from "#domain/pdf/libpdf-internals.ts";
import { loadForWriting, readPdfFile } from "#domain/pdf/open-pdf.ts";
import { checkMayChange } from "#domain/pdf-tools/permissions.ts";
import { guardSignatures, removeSignatures } from "#domain/pdf-tools/signatures.ts";
import { resolveDocument, type ResolvedDocument } from "#domain/shared/document.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";

/**
 * The inputs of the PDF tools: a `document` member resolved as sign resolves it (base64, URL,
 * upload; a DOCX converted through intake and the converter port first), read once as a PdfFile
 * (bounded; an encrypted one opened with document.password as sign opens it; too many pages and
 * damaged files refused as sign refuses them), checked by
 * the signature guard, and loaded into libpdf, the writer, with the signatures removed when the
 * caller allowed it.
 */

/** ToolDependencies are what reading an input needs: the fetcher, the converter and the document limits. */
export interface ToolDependencies {
  fetcher: Fetcher;
  converter: Converter;
  limits: IntakeLimits & { maxPdfPages: number };
}

/** SourceDocument is one input ready for assemble(): the libpdf document, its page count, the signatures removed. */
export interface SourceDocument {
  pdf: PDF;
  pageCount: number;
  bytes: number;
  dropped: string[];
  /** The file name a URL gave, if any. */
  fileName?: string | undefined;
}

/** resolvePdfInput resolves a `document` member to PDF bytes: a PDF as it is, a DOCX converted. */
export async function resolvePdfInput(
  member: Parameters<typeof resolveDocument>[0],
  deps: ToolDependencies,
): Promise<{ bytes: Buffer; document: ResolvedDocument }> {
  const document = await resolveDocument(member, ["pdf", "docx"], { fetcher: deps.fetcher, limits: deps.limits });
  if (document.type !== "docx") return { bytes: document.bytes, document };
  const prepared = await intake(document.zip ?? document.bytes, "docx", deps.limits);
  return { bytes: await deps.converter.convert(prepared, { to: "pdf" }), document };
}

/** libpdfSignatures names the signed signature fields as libpdf reads them (a file whose chain needed repair). */
function libpdfSignatures(pdf: PDF): string[] {
  return (pdf.getForm()?.getFields() ?? []).filter((field) => signatureDictOf(field) !== null).map((field) => field.name);
}

/**
 * openSource reads one input PDF for a tool (an encrypted one with its password, encryption.ts): the guard (409 WOULD_INVALIDATE_SIGNATURES unless
 * dropSignatures) and the libpdf document with those signatures removed. `field` names the
 * request member in errors.
 */
export async function openSource(
  bytes: Buffer,
  options: { field: string; dropSignatures?: boolean | undefined; maxPages: number; password?: string | undefined },
): Promise<SourceDocument> {
  let file: ReturnType<typeof readPdfFile>;
  let pdf: PDF;
  try {
    file = readPdfFile(bytes, options.maxPages, options.password);
    pdf = await loadForWriting(bytes, file, options.maxPages, options.password);
    // The tool's output is a new, unencrypted PDF: as POST /v1/unprotect, that takes the owner password or the modify permission.
    checkMayChange(pdf, "writes it unencrypted");
  } catch (error) {
    if (error instanceof SignetError) throw withField(error, options.field);
    throw error;
  }
  let names: string[];
  if (file) names = guardSignatures(file, options);
  else {
    names = libpdfSignatures(pdf);
    if (names.length > 0 && options.dropSignatures !== true) {
      throw new SignetError(
        "WOULD_INVALIDATE_SIGNATURES",
        `${options.field} is signed and its cross-reference table needs repair; send "dropSignatures": true to remove the signatures and go on.`,
        {
          details: names.map((name) => ({ field: options.field, issue: `signed signature field "${name}"` })),
        },
      );
    }
  }
  const dropped = removeSignatures(pdf, names);
  return { pdf, pageCount: pdf.getPageCount(), bytes: bytes.length, dropped };
}

/** withField names the request member in a refusal that said "document". */
function withField(error: SignetError, field: string): SignetError {
  if (field === "document") return error;
  // "document.password" becomes "documents.1.document.password": the caller sees which input's password.
  const details = error.details?.map((detail) => ({
    ...detail,
    field: detail.field.startsWith("document.") ? `${field}${detail.field.slice(8)}` : field,
  })) ?? [{ field, issue: error.message }];
  return new SignetError(error.code, `${field}: ${error.message}`, { details, cause: error });
}
