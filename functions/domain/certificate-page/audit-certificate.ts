// The audit trail certificate: what it says (content.ts), in which look (style.ts), laid out
// (layout.ts) and drawn (blocks.ts on canvas.ts, text through runs.ts and operators.ts).
import type { PDF } from "@libpdf/core";
import { drawBlocks } from "#domain/certificate-page/blocks.ts";
import { CertificateCanvas } from "#domain/certificate-page/canvas.ts";
import { certificateContent, footerText, pageLabel, type AuditCertificate } from "#domain/certificate-page/content.ts";
import { certificatePageSize } from "#domain/certificate-page/layout.ts";
import { STYLE, type PageSize } from "#domain/certificate-page/style.ts";
import { DocumentFonts, type FontFiles } from "#domain/pdf-text/fonts.ts";

export { formatUtc, sortEvents, VALUE_LIMIT, type AuditCertificate, type AuditEvent } from "#domain/certificate-page/content.ts";
export type { PageSize } from "#domain/certificate-page/style.ts";

/**
 * drawAuditCertificate appends the audit trail certificate page(s) to a document: a title
 * block, the document, signer and signature details, the metadata, every audit event in time
 * order and how to verify, flowing onto as many pages as needed, each with "page x of y". The
 * pages take `pageSize` (the document's last page, portrait or landscape) when the layout fits on
 * it, else A4. Text in any script the bundled fonts cover renders (see pdf-text/).
 */
export function drawAuditCertificate(pdf: PDF, certificate: AuditCertificate, files: FontFiles, pageSize?: PageSize): void {
  const fonts = new DocumentFonts(pdf, files);
  const canvas = new CertificateCanvas(pdf, fonts, certificatePageSize(pageSize, STYLE.page));
  drawBlocks(canvas, certificateContent(certificate));
  canvas.writePages(pdf, footerText(certificate), pageLabel);
  fonts.finalize();
}
