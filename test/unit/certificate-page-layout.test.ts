// The certificate page's geometry (layout.ts), pure: widths in, lines and pages out.
import { describe, expect, it } from "vitest";
import { certificatePageSize, PageFlow, wrapParagraphs } from "#domain/certificate-page/layout.ts";
import { STYLE } from "#domain/certificate-page/style.ts";

/** Every character 5 pt wide: a line of n characters is 5n points. */
const fiveEach = (text: string) => Array.from(text).length * 5;

describe("certificatePageSize", () => {
  it.each([
    { name: "no size", size: undefined, expected: STYLE.page.fallback },
    { name: "US Letter landscape", size: { width: 792, height: 612 }, expected: { width: 792, height: 612 } },
    { name: "A5 portrait, the smallest", size: { width: 419.53, height: 595.28 }, expected: { width: 419.53, height: 595.28 } },
    { name: "narrower than A5", size: { width: 419.5, height: 595.28 }, expected: STYLE.page.fallback },
    { name: "too small", size: { width: 200, height: 300 }, expected: STYLE.page.fallback },
    { name: "200 inches, the largest", size: { width: 14_400, height: 14_400 }, expected: { width: 14_400, height: 14_400 } },
    { name: "larger than PDF allows", size: { width: 14_401, height: 600 }, expected: STYLE.page.fallback },
    { name: "not a number", size: { width: Number.NaN, height: 600 }, expected: STYLE.page.fallback },
  ])("$name", ({ size, expected }) => {
    expect(certificatePageSize(size, STYLE.page)).toEqual(expected);
  });
});

describe("wrapParagraphs", () => {
  it.each([
    { name: "fits on one line", text: "abc def", width: 35, lines: ["abc def"] },
    { name: "breaks at the space", text: "abc def", width: 30, lines: ["abc", "def"] },
    { name: "breaks inside a word too wide alone", text: "abcdefgh", width: 20, lines: ["abcd", "efgh"] },
    { name: "keeps paragraphs", text: "ab\ncd\r\nef", width: 100, lines: ["ab", "cd", "ef"] },
    { name: "trailing spaces do not count", text: "abc   ", width: 15, lines: ["abc"] },
    { name: "NFC first (e + combining acute is one character)", text: "cafe\u0301 au", width: 20, lines: ["café", "au"] },
  ])("$name", ({ text, width, lines }) => {
    expect(wrapParagraphs(text, width, fiveEach).map((line) => line.text)).toEqual(lines);
  });

  it("gives each line its paragraph's direction and measures it in visual order", () => {
    const measured: string[] = [];
    const lines = wrapParagraphs("שלום abc\nhello", 1000, (visual) => {
      measured.push(visual);
      return fiveEach(visual);
    });
    expect(lines).toEqual([
      { text: "שלום abc", direction: "rtl" },
      { text: "hello", direction: "ltr" },
    ]);
    expect(measured[0]).toBe("abc םולש");
  });
});

describe("PageFlow", () => {
  const page = { width: 400, height: 300 };
  const margin = { left: 20, right: 30, top: 40, bottom: 60 };

  it("measures the content box", () => {
    const flow = new PageFlow(page, margin);
    flow.newPage();
    expect({ cursor: flow.cursor, contentWidth: flow.contentWidth, right: flow.right, pages: flow.pages }).toEqual({
      cursor: 260,
      contentWidth: 350,
      right: 370,
      pages: 1,
    });
  });

  // 200 points between the top margin (y 260) and the bottom one (y 60).
  it.each([
    { name: "blocks that fill a page exactly", heights: [100, 100], pages: [1, 1] },
    { name: "the block that does not fit starts a page", heights: [100, 100, 1], pages: [1, 1, 2] },
    { name: "a block taller than a page gets one of its own", heights: [10, 250, 10], pages: [1, 2, 3] },
    { name: "many small blocks", heights: Array.from({ length: 10 }, () => 45), pages: [1, 1, 1, 1, 2, 2, 2, 2, 3, 3] },
  ])("$name", ({ heights, pages }) => {
    const flow = new PageFlow(page, margin);
    flow.newPage();
    const placed = heights.map((height) => {
      if (!flow.fits(height)) flow.newPage();
      flow.advance(height);
      return flow.pages;
    });
    expect(placed).toEqual(pages);
  });
});
