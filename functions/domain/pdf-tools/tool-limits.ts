import { SignetError } from "#domain/shared/errors.ts";

/** PdfToolLimits bound the PDF tools (docs/configuration.md): inputs of a merge, their bytes together, parts of a split, pages out. */
export interface PdfToolLimits {
  /** Documents one merge takes (SIGNET_MERGE_MAX_INPUTS). */
  maxMergeInputs: number;
  /** Bytes of a merge's inputs together, after decoding and conversion (SIGNET_MERGE_MAX_TOTAL_BYTES). */
  maxMergeTotalBytes: number;
  /** Parts one split makes (SIGNET_SPLIT_MAX_PARTS). */
  maxSplitParts: number;
  /** Pages of any PDF read or made (SIGNET_MAX_PDF_PAGES). */
  maxPdfPages: number;
}

/** tooManyPagesOut is the 413 for an output that would pass the page limit. */
export function tooManyPagesOut(pages: number, max: number, field: string): SignetError {
  return new SignetError("PAYLOAD_TOO_LARGE", `The result would have ${pages} pages; Signet makes PDFs of at most ${max} pages. Take fewer pages.`, {
    details: [{ field, issue: `at most ${max} pages` }],
  });
}
