import type { SourceFormat, TargetFormat } from "#domain/documents/formats.ts";
import type { PreparedDocument } from "#domain/documents/intake.ts";
import type { ZipEntry } from "#domain/shared/zip-container.ts";

/** ConversionOptions say what to make of a prepared document. */
export interface ConversionOptions {
  to: TargetFormat;
  /** Export PDF/A-2b (only with to = "pdf"). */
  pdfa?: boolean;
  /**
   * For spreadsheets and presentations: export at most this many pages plus one, so the caller can
   * tell a document over its page limit (checkConvertedPages) without LibreOffice writing them all.
   */
  maxPages?: number;
  /**
   * This call's time limit in ms, instead of the converter's own (SIGNET_CONVERSION_TIMEOUT_MS):
   * a job's run gives its conversion the time its invocation has left (up to 15 minutes).
   */
  timeoutMs?: number;
}

/**
 * Converter turns office documents into PDF (or DOCX). Used by convert, by sign for DOCX input and
 * by annotate with to=pdf. It takes only a PreparedDocument: every document went through intake().
 * Implementations raise SignetError: CONVERSION_TIMEOUT, CONVERSION_FAILED (LibreOffice crashed or
 * exited with an error, also on a retry), RATE_LIMIT_ERROR (queue full, with retryAfterSeconds),
 * INVALID_DOCUMENT (LibreOffice produced no valid output), SERVICE_UNAVAILABLE (no LibreOffice installed).
 */
export interface Converter {
  convert(document: PreparedDocument, options: ConversionOptions): Promise<Buffer>;
}

/**
 * ConversionJob is what an adapter works from: a prepared document's bytes, format, decoded text
 * and zip directory, flattened with the options (its own warm-up documents are jobs too).
 */
export interface ConversionJob extends ConversionOptions {
  bytes: Uint8Array;
  from: SourceFormat;
  /** The bytes decoded as UTF-8 (md, html, csv) when intake did so; decoded from bytes otherwise. */
  text?: string;
  /** The zip directory intake read (DOCX and other packages), so the adapter does not read it again. */
  entries?: readonly ZipEntry[];
}

/** conversionJob flattens a prepared document and the options into the adapter's job. */
export function conversionJob(document: PreparedDocument, options: ConversionOptions): ConversionJob {
  const { text, zip } = document;
  return {
    bytes: document.bytes,
    from: document.format,
    ...options,
    ...(text === undefined ? {} : { text }),
    ...(zip ? { entries: zip.entries } : {}),
  };
}
