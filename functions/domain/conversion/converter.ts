/** SourceFormat is a format the converter reads. */
export type SourceFormat = "docx" | "doc" | "odt" | "rtf" | "md" | "html" | "xlsx" | "xls" | "ods" | "csv" | "pptx" | "ppt" | "odp";

/** SourceFamily is the LibreOffice application that reads a format: it decides the PDF export filter. */
export type SourceFamily = "writer" | "calc" | "impress";

/** sourceFamilies gives each source format its application. */
export const sourceFamilies: Record<SourceFormat, SourceFamily> = {
  docx: "writer",
  doc: "writer",
  odt: "writer",
  rtf: "writer",
  md: "writer",
  html: "writer",
  xlsx: "calc",
  xls: "calc",
  ods: "calc",
  csv: "calc",
  pptx: "impress",
  ppt: "impress",
  odp: "impress",
};

/** TargetFormat is a format the converter writes. */
export type TargetFormat = "pdf" | "docx";

/** ConversionRequest is one job for the converter. */
export interface ConversionRequest {
  bytes: Uint8Array;
  from: SourceFormat;
  to: TargetFormat;
  /** The bytes decoded as UTF-8 (md, html) when the caller already did so; decoded from bytes otherwise. */
  text?: string;
  /** Export PDF/A-2b (only with to = "pdf"). */
  pdfa?: boolean;
  /**
   * For spreadsheets and presentations: export at most this many pages plus one, so the caller can
   * tell a document over its page limit (checkConvertedPages) without LibreOffice writing them all.
   */
  maxPages?: number;
}

/**
 * Converter turns office documents into PDF (or DOCX). Used by convert, by sign for DOCX input and
 * by annotate with to=pdf. Implementations raise SignetError: CONVERSION_TIMEOUT, CONVERSION_FAILED
 * (LibreOffice crashed or exited with an error, also on a retry), RATE_LIMIT_ERROR
 * (queue full, with retryAfterSeconds), INVALID_DOCUMENT (LibreOffice produced no valid output),
 * SERVICE_UNAVAILABLE (no LibreOffice installed).
 */
export interface Converter {
  convert(request: ConversionRequest): Promise<Buffer>;
}
