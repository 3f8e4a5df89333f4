import { SignetError } from "#domain/shared/errors.ts";

/**
 * Page ranges as callers write them: "1-3,7,9-" (1-based, inclusive; "9-" runs to the last page,
 * "-3" from the first; "last" names the last page, "last-2" the one two before it). Every page
 * named must exist; a range may run backwards ("5-3" is 5, 4, 3).
 */

// A range list longer than any page list a caller writes by hand.
const MAX_RANGE_TEXT = 10_000;
const PART = /^\s*(last(?:-\d+)?|\d+)?\s*(-)?\s*(last(?:-\d+)?|\d+)?\s*$/;

/** pageNumber reads one page reference ("7", "last", "last-1") against the page count. */
function pageNumber(text: string, pageCount: number): number {
  if (text.startsWith("last")) return pageCount - Number(text.slice(5) || 0);
  return Number(text);
}

/** rangeError is the 400 for a page range that does not read or names a page the document lacks. */
function rangeError(field: string, issue: string): SignetError {
  return new SignetError("VALIDATION_ERROR", `${field}: ${issue}.`, { details: [{ field, issue }] });
}

/** parsePageRanges turns "1-3,7,9-" into 0-based page indexes, in the order written (a page may appear twice). */
export function parsePageRanges(text: string, pageCount: number, field: string, maxPages = Number.POSITIVE_INFINITY): number[] {
  if (text.length > MAX_RANGE_TEXT) throw rangeError(field, `longer than ${MAX_RANGE_TEXT} characters`);
  const pages: number[] = [];
  for (const part of text.split(",")) {
    const match = PART.exec(part);
    if (!match || (match[1] === undefined && match[3] === undefined)) throw rangeError(field, `"${part.trim()}" is not a page or a range like 1-3, 9- or last`);
    const from = match[1] === undefined ? 1 : pageNumber(match[1], pageCount);
    const to = match[2] === undefined ? from : match[3] === undefined ? pageCount : pageNumber(match[3], pageCount);
    for (const page of [from, to]) {
      if (!Number.isSafeInteger(page) || page < 1 || page > pageCount)
        throw rangeError(field, `page ${page} does not exist (the document has ${pageCount} pages)`);
    }
    const step = to >= from ? 1 : -1;
    if (pages.length + Math.abs(to - from) + 1 > maxPages)
      throw new SignetError("PAYLOAD_TOO_LARGE", `${field} names more than ${maxPages} pages; Signet makes PDFs of at most ${maxPages} pages.`, {
        details: [{ field, issue: `at most ${maxPages} pages` }],
      });
    for (let page = from; page !== to + step; page += step) pages.push(page - 1);
  }
  return pages;
}
