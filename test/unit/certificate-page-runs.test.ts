// Text runs of the certificate page (runs.ts) and the operators they are drawn with (operators.ts):
// real fonts (assets/fonts), no layout.
import { PDF } from "@libpdf/core";
import { describe, expect, it } from "vitest";
import { GlyphForms, textOperators, type Operator } from "#domain/pdf-text/operators.ts";
import { extractionText, linePieces } from "#domain/pdf-text/runs.ts";
import { appendPage } from "#domain/pdf/page-tree.ts";
import { DocumentFonts } from "#domain/pdf-text/fonts.ts";
import { testFonts } from "#test/helpers/test-fonts.ts";

const LRM = "\u200e";

function setup() {
  const pdf = PDF.create();
  const fonts = new DocumentFonts(pdf, testFonts());
  return { pdf, fonts, page: appendPage(pdf, { width: 300, height: 300 }), forms: new GlyphForms(pdf) };
}

describe("extractionText (the order poppler turns back into the typed one)", () => {
  it.each([
    { name: "left-to-right text unchanged", text: "Signed ✅ Zoë", expected: "Signed ✅ Zoë" },
    { name: "in NFC", text: "cafe\u0301", expected: "café" },
    { name: "a Hebrew word reversed", text: "שלום", expected: "םולש" },
    { name: "Arabic reversed by code point", text: "سلام", expected: "مالس" },
    { name: "neutrals after right-to-left text kept after it, behind a mark", text: "abc שלום def", expected: `abc םולש${LRM} def` },
    { name: "digits end the right-to-left section", text: "מס׳ 42", expected: `׳סמ${LRM} 42` },
  ])("$name", ({ text, expected }) => {
    expect(extractionText(text)).toBe(expected);
  });
});

describe("linePieces", () => {
  it("draws a left-to-right line as one piece as wide as the text", () => {
    const { fonts } = setup();
    const { pieces, width } = linePieces(fonts, "Hello", "ltr", "regular", 10);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]!.x).toBe(0);
    expect(width).toBeCloseTo(fonts.width("Hello", "regular", 10), 6);
  });

  it("cuts a mixed line into pieces listed in typed order, placed where they show", () => {
    const { fonts } = setup();
    const { pieces, width } = linePieces(fonts, "abc שלום def", "ltr", "regular", 10);
    expect(pieces.map((piece) => piece.runs.map((run) => run.text).join(""))).toEqual(["abc ", "ש", "ל", "ו", "ם", " def"]);
    const hebrew = pieces.slice(1, 5).map((piece) => piece.x);
    // Right to left: each typed letter stands left of the one before it, between the two Latin pieces.
    expect(hebrew).toEqual([...hebrew].sort((a, b) => b - a));
    expect(Math.min(...hebrew)).toBeCloseTo(pieces[0]!.width, 6);
    expect(pieces[5]!.x + pieces[5]!.width).toBeCloseTo(width, 6);
  });

  it("draws Arabic in its contextual forms, extracting as the typed letters, with the alef of lam-alef invisible", () => {
    const { fonts } = setup();
    const { pieces } = linePieces(fonts, "سلام", "rtl", "regular", 10);
    expect(pieces.map((piece) => piece.extractAs ?? piece.runs.map((run) => run.text).join(""))).toEqual(["س", "ل", "ا", "م"]);
    expect(pieces.map((piece) => piece.invisible === true)).toEqual([false, false, true, false]);
    expect(pieces[0]!.runs[0]!.text).not.toBe("س");
  });

  it("shapes Devanagari with HarfBuzz (glyph outlines)", () => {
    const { fonts } = setup();
    const { pieces } = linePieces(fonts, "नमस्ते", "ltr", "regular", 10);
    expect(pieces).toHaveLength(1);
    expect(pieces[0]!.runs.some((run) => run.glyphs !== undefined)).toBe(true);
  });
});

describe("textOperators", () => {
  it("draws a plain line as one marked span with its ActualText, Identity-H glyph ids in one Tj", () => {
    const { fonts, page, forms } = setup();
    const out: Operator[] = [];
    const { pieces } = linePieces(fonts, "Hi", "ltr", "regular", 10);
    textOperators(page, forms, out, pieces, 10, 20, 10, [0, 0, 0], "Hi");
    const text = out.map(String);
    expect(text[0]).toMatch(/^\/Span <<\s*\/ActualText \(Hi\)\s*>> BDC$/);
    expect(text.slice(1)).toEqual([
      "0 0 0 rg",
      "BT",
      expect.stringMatching(/^\/F\d+ 10 Tf$/),
      "1 0 0 1 10 20 Tm",
      expect.stringMatching(/^<[0-9A-F]{8}> Tj$/),
      "ET",
      "EMC",
    ]);
  });

  it("draws an invisible piece in render mode 3 and a shaped run as glyph forms outside the text object", () => {
    const { fonts, page, forms } = setup();
    const arabic: Operator[] = [];
    textOperators(page, forms, arabic, linePieces(fonts, "سلام", "rtl", "regular", 10).pieces, 0, 0, 10, [0, 0, 0], "x");
    expect(arabic.map(String)).toContain("3 Tr");
    const shaped: Operator[] = [];
    textOperators(page, forms, shaped, linePieces(fonts, "नमस्ते", "ltr", "regular", 10).pieces, 0, 0, 10, [0, 0, 0], "x");
    const text = shaped.map(String);
    expect(text.filter((op) => op.endsWith(" Do")).length).toBeGreaterThan(0);
    expect(text.indexOf("ET")).toBeLessThan(text.findIndex((op) => op.endsWith(" Do")));
  });
});
