import { assemble } from "#domain/pdf-tools/assemble.ts";
import type { ToolResult } from "#domain/pdf-tools/merge.ts";
import { parsePageRanges } from "#domain/pdf-tools/page-ranges.ts";
import type { SourceDocument } from "#domain/pdf-tools/source.ts";
import type { PdfToolLimits } from "#domain/pdf-tools/tool-limits.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { TimeSlice } from "#domain/shared/time-slice.ts";

/** SplitRequest says where to cut: one part per range ("1-3", "4-"), or a part every N pages. */
export type SplitRequest = { ranges: string[]; every?: undefined } | { every: number; ranges?: undefined };

/** partRanges turns a split request into the pages of each part (0-based). */
function partRanges(request: SplitRequest, pageCount: number, limits: PdfToolLimits): number[][] {
  let parts: number[][];
  if (request.every !== undefined) {
    const count = Math.ceil(pageCount / request.every);
    if (count > limits.maxSplitParts) throw tooManyParts(count, limits.maxSplitParts, "every");
    parts = Array.from({ length: count }, (_, part) => {
      const from = part * request.every;
      return Array.from({ length: Math.min(request.every, pageCount - from) }, (_, at) => from + at);
    });
  } else {
    if (request.ranges.length > limits.maxSplitParts) throw tooManyParts(request.ranges.length, limits.maxSplitParts, "ranges");
    let total = 0;
    parts = request.ranges.map((range, index) => {
      const pages = parsePageRanges(range, pageCount, `ranges.${index}`, limits.maxPdfPages);
      total += pages.length;
      if (total > limits.maxPdfPages * 2) throw tooManyParts(total, limits.maxPdfPages * 2, "ranges", "pages in all parts together");
      return pages;
    });
  }
  return parts;
}

function tooManyParts(count: number, max: number, field: string, what = "parts"): SignetError {
  return new SignetError("PAYLOAD_TOO_LARGE", `The split would make ${count} ${what}; Signet makes at most ${max}. Cut into fewer parts.`, {
    details: [{ field, issue: `at most ${max} ${what}` }],
  });
}

/** SplitPart is one part of a split: its PDF, and its pages in the source (0-based, in the part's order). */
export type SplitPart = ToolResult & { pages: number[] };

/**
 * splitParts cuts one PDF into parts (POST /v1/split): each part a PDF of its pages, with their
 * fields, destinations and bookmarks, made when the caller asks for it, so the caller writes one
 * part away (into the zip) before the next exists. The parts are checked against the limits
 * before the first is made.
 */
export async function* splitParts(source: SourceDocument, request: SplitRequest, limits: PdfToolLimits): AsyncGenerator<SplitPart> {
  const slice = new TimeSlice();
  for (const pages of partRanges(request, source.pageCount, limits)) {
    const { bytes, report } = await assemble([{ pdf: source.pdf, pages: pages.map((index) => ({ index, rotate: 0 })) }]);
    yield { pdf: bytes, pageCount: pages.length, dropped: source.dropped, report, pages };
    if (slice.due()) await slice.pause();
  }
}
