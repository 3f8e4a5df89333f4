import type { ConversionOptions } from "#domain/documents/converter.ts";
import { FORMATS, type SourceFormat, type TargetFormat } from "#domain/documents/formats.ts";
import { PdfFile } from "#domain/pdf/pdf-file.ts";
import { SignetError } from "#domain/shared/errors.ts";

/**
 * conversionOptions checks that from/to/pdfa make sense together (a 400 otherwise; the targets of
 * each format are its FORMATS row's) and returns them in the converter's terms; spreadsheets and
 * presentations carry the page limit (`maxPages`, checked on the output with checkConvertedPages).
 */
export function conversionOptions(
  query: { from: SourceFormat; to: TargetFormat; pdfa?: "2b" | undefined },
  limits: { maxConvertPages: number },
): ConversionOptions & { from: SourceFormat } {
  const { from, to, pdfa } = query;
  const targets: readonly TargetFormat[] = FORMATS[from].targets;
  if (!targets.includes(to)) {
    throw new SignetError("VALIDATION_ERROR", `A ${from} file cannot be converted to ${to}; choose to=${targets.join(" or to=")}.`, {
      details: [{ field: "query.to", issue: `from=${from} supports to=${targets.join(", ")}` }],
    });
  }
  if (pdfa !== undefined && to !== "pdf") {
    throw new SignetError("VALIDATION_ERROR", "pdfa applies to PDF output only; drop pdfa or use to=pdf.", {
      details: [{ field: "query.pdfa", issue: "only with to=pdf" }],
    });
  }
  return { from, to, ...(pdfa ? { pdfa: true } : {}), ...(FORMATS[from].family === "writer" ? {} : { maxPages: limits.maxConvertPages }) };
}

/**
 * checkConvertedPages refuses a converted spreadsheet or presentation with more pages than
 * `maxPages` (PAYLOAD_TOO_LARGE naming the limit). The converter exported at most one page more
 * than the limit (ConversionOptions.maxPages), so this reads a bounded PDF of LibreOffice's own.
 */
export async function checkConvertedPages(pdf: Uint8Array, maxPages: number): Promise<void> {
  // The page tree walk stops one page past the limit (PdfFile.pageCount is then maxPages + 1).
  const pages = new PdfFile(Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength), { maxPages }).pageCount;
  if (pages > maxPages) {
    throw new SignetError("PAYLOAD_TOO_LARGE", `The document prints to more than ${maxPages} pages, the conversion limit; set print areas or split it.`, {
      details: [{ field: "file", issue: `more than ${maxPages} pages` }],
    });
  }
}
