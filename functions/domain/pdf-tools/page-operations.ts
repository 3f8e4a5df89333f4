import { assemble, type PageChoice } from "#domain/pdf-tools/assemble.ts";
import type { ToolResult } from "#domain/pdf-tools/merge.ts";
import { parsePageRanges } from "#domain/pdf-tools/page-ranges.ts";
import type { SourceDocument } from "#domain/pdf-tools/source.ts";
import { type PdfToolLimits, tooManyPagesOut } from "#domain/pdf-tools/tool-limits.ts";
import { SignetError } from "#domain/shared/errors.ts";

/**
 * PageOperation is one step of POST /v1/pages, applied in order to the pages as the steps before
 * left them (page numbers count from 1 in the current order): keep only some (select, in the order
 * named, a page may repeat), put them in a new order (reorder, every page once), turn some (rotate,
 * clockwise, added to the page's own rotation), take some out (delete).
 */
export type PageOperation =
  | { op: "select"; pages: string }
  | { op: "reorder"; order: string }
  | { op: "rotate"; pages: string; degrees: 90 | 180 | 270 }
  | { op: "delete"; pages: string };

function stepError(field: string, issue: string): SignetError {
  return new SignetError("VALIDATION_ERROR", `${field}: ${issue}.`, { details: [{ field, issue }] });
}

/** applyOperation is one step on the current page list. */
function applyOperation(current: PageChoice[], operation: PageOperation, index: number, limits: PdfToolLimits): PageChoice[] {
  const field = `operations.${index}`;
  if (operation.op === "reorder") {
    const order = parsePageRanges(operation.order, current.length, `${field}.order`, limits.maxPdfPages);
    if (order.length !== current.length || new Set(order).size !== current.length) {
      throw stepError(`${field}.order`, `name every one of the ${current.length} pages exactly once (use select to keep some)`);
    }
    return order.map((at) => current[at]!);
  }
  const pages = parsePageRanges(operation.pages, current.length, `${field}.pages`, limits.maxPdfPages);
  if (operation.op === "select") return pages.map((at) => ({ ...current[at]! }));
  const chosen = new Set(pages);
  if (operation.op === "delete") {
    const left = current.filter((_, at) => !chosen.has(at));
    if (left.length === 0) throw stepError(`${field}.pages`, "deletes every page; a PDF needs at least one");
    return left;
  }
  return current.map((page, at) => (chosen.has(at) ? { ...page, rotate: page.rotate + operation.degrees } : page));
}

/** applyPageOperations runs the steps on a PDF (POST /v1/pages) and makes one PDF of the result. */
export async function applyPageOperations(source: SourceDocument, operations: PageOperation[], limits: PdfToolLimits): Promise<ToolResult> {
  let pages: PageChoice[] = Array.from({ length: source.pageCount }, (_, index) => ({ index, rotate: 0 }));
  operations.forEach((operation, index) => {
    pages = applyOperation(pages, operation, index, limits);
    if (pages.length > limits.maxPdfPages) throw tooManyPagesOut(pages.length, limits.maxPdfPages, `operations.${index}`);
  });
  const { bytes, report } = await assemble([{ pdf: source.pdf, pages }]);
  return { pdf: bytes, pageCount: pages.length, dropped: source.dropped, report };
}
