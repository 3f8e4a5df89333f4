// Page ranges of the PDF tools ("1-3,7,9-"), table-driven: one row = text, page count, pages or the issue.
import { describe, expect, it } from "vitest";
import { parsePageRanges } from "#domain/pdf-tools/page-ranges.ts";
import { isSignetError } from "#domain/shared/errors.ts";

const rows: Array<[string, number, number[] | string]> = [
  ["1", 3, [0]],
  ["1-3,7,9-", 10, [0, 1, 2, 6, 8, 9]],
  ["-2", 5, [0, 1]],
  ["4-", 5, [3, 4]],
  ["3-1", 5, [2, 1, 0]],
  ["last", 5, [4]],
  ["last-1-last", 5, [3, 4]],
  [" 2 , 2 ", 5, [1, 1]],
  ["0", 5, "page 0 does not exist (the document has 5 pages)"],
  ["2-6", 5, "page 6 does not exist (the document has 5 pages)"],
  ["last-5", 5, "page 0 does not exist (the document has 5 pages)"],
  ["a", 5, '"a" is not a page or a range like 1-3, 9- or last'],
  ["1,,2", 5, '"" is not a page or a range like 1-3, 9- or last'],
  ["-", 5, '"-" is not a page or a range like 1-3, 9- or last'],
];

describe("parsePageRanges", () => {
  it.each(rows)("%s of %i pages", (text, count, expected) => {
    if (Array.isArray(expected)) {
      expect(parsePageRanges(text, count, "pages")).toEqual(expected);
      return;
    }
    let error: unknown;
    try {
      parsePageRanges(text, count, "pages");
    } catch (caught) {
      error = caught;
    }
    expect(isSignetError(error) && error.code).toBe("VALIDATION_ERROR");
    expect(isSignetError(error) && error.details).toEqual([{ field: "pages", issue: expected }]);
  });

  it("stops at the page limit before building the list", () => {
    expect(() => parsePageRanges(Array(1000).fill("1-1000").join(","), 1000, "pages", 10_000)).toThrow(/more than 10000 pages/);
  });
});
