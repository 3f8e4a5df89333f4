import type { ToolResult } from "#domain/pdf-tools/merge.ts";
import type { SplitPart } from "#domain/pdf-tools/split.ts";
import type { StoredUpload } from "#domain/shared/upload.ts";
import { droppedSignaturesHeader } from "#domain/pdf-tools/signatures.ts";
import { base64Text, type HttpResponse, json } from "#http/responses.ts";

/**
 * pdfToolAnswer is the answer of merge and pages, shaped like sign's: the PDF as base64 in JSON,
 * with the page count and what the tool did besides; signatures removed are named in the
 * Signet-Dropped-Signatures header too, as on every PDF tool's answer (docs/api.md, "PDF tools").
 */
export function pdfToolAnswer(result: ToolResult): HttpResponse {
  return json(
    200,
    {
      document: { base64: base64Text(result.pdf), contentType: "application/pdf" },
      pageCount: result.pageCount,
      droppedSignatures: result.dropped,
      renamedFields: result.report.renamedFields,
      renamedDestinations: result.report.renamedDestinations,
    },
    droppedSignaturesHeader(result.dropped),
  );
}

/** splitUploadsAnswer is split's answer with output "uploads": per part its upload id, pages (1-based), size and expiry. */
export function splitUploadsAnswer(parts: readonly SplitPart[], stored: readonly StoredUpload[], dropped: string[]): HttpResponse {
  const listed = parts.map((part, index) => ({
    upload: stored[index]!.upload,
    pages: part.pages.map((page) => page + 1),
    pageCount: part.pageCount,
    bytes: stored[index]!.bytes,
    expiresAt: stored[index]!.expiresAt,
  }));
  return json(200, { parts: listed, droppedSignatures: dropped }, droppedSignaturesHeader(dropped));
}
