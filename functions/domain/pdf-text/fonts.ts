import { PDF, type EmbeddedFont } from "@libpdf/core";
import { registerEmbeddedFont } from "#domain/pdf/libpdf-internals.ts";
import { finalizeSubset } from "#domain/pdf-text/font-subsets.ts";
import { shape, type TextRun } from "#domain/pdf-text/shaping.ts";

/**
 * FontSource is a TrueType program, or a function that reads it when a page first needs it
 * (large fallbacks such as a CJK Extension B font); the function must return the same bytes on
 * every call, since parsed programs are cached by their bytes.
 */
export type FontSource = Uint8Array | (() => Uint8Array);

/** FontFiles are the TrueType programs the certificate page draws with. */
export interface FontFiles {
  regular: Uint8Array;
  bold: Uint8Array;
  mono: Uint8Array;
  /** Fallback for Chinese, Japanese and Korean. */
  cjk: Uint8Array;
  /** Further fallbacks, tried in order after cjk (Devanagari, Tamil, Thai, emoji, then extra fonts such as CJK Extension B). */
  fallbacks?: readonly FontSource[] | undefined;
}

/** FontStyle picks one of the primary fonts. */
export type FontStyle = "regular" | "bold" | "mono";

type FontProgram = EmbeddedFont["program"];
type EmbeddedFontClass = new (program: FontProgram, data: Uint8Array) => EmbeddedFont;

interface ParsedFont {
  program: FontProgram;
  data: Uint8Array;
  construct: EmbeddedFontClass;
  /** Whether the program has a glyph for a code point, as asked so far. */
  covers: Map<number, boolean>;
  /** Advance widths by code point in 1/1000 em, rounded as libpdf's getWidth, as asked so far. */
  advances: Map<number, number>;
}

// Parsing a TrueType program (cmap, hmtx, post) costs 5-20 ms per font; the programs are
// immutable, so each is parsed once per container and shared by every document.
const parsed = new WeakMap<Uint8Array, ParsedFont>();

function parse(data: Uint8Array): ParsedFont {
  let font = parsed.get(data);
  if (!font) {
    const probe = PDF.create().embedFont(data);
    font = { program: probe.program, data, construct: probe.constructor as EmbeddedFontClass, covers: new Map(), advances: new Map() };
    parsed.set(data, font);
  }
  return font;
}

// Measuring text is most of the page-drawing time (wrapping measures every line as it grows), so
// the per-character answers are remembered per font program, for every document of the container.
function hasGlyph(font: ParsedFont, code: number): boolean {
  let known = font.covers.get(code);
  if (known === undefined) {
    known = font.program.hasGlyph(code);
    font.covers.set(code, known);
  }
  return known;
}

function advance(font: ParsedFont, code: number): number {
  let width = font.advances.get(code);
  if (width === undefined) {
    width = Math.round((font.program.getAdvanceWidth(font.program.getGlyphId(code)) * 1000) / font.program.unitsPerEm);
    font.advances.set(code, width);
  }
  return width;
}

const continuing = new Map<number, boolean>();

/** continuesCluster tells whether a character continues the cluster before it (see CONTINUES_CLUSTER). */
function continuesCluster(code: number): boolean {
  let known = continuing.get(code);
  if (known === undefined) {
    known = CONTINUES_CLUSTER.test(String.fromCodePoint(code));
    continuing.set(code, known);
  }
  return known;
}

/**
 * embedParsed attaches a font to a document reusing the container's parsed program. It does what
 * libpdf's PDFFonts.embed does after parsing (allocate the ref, register for finalisation), which
 * libpdf 0.4 exposes no public way to do with an already parsed program.
 */
function embedParsed(pdf: PDF, font: ParsedFont): EmbeddedFont {
  const embedded = new font.construct(font.program, font.data);
  registerEmbeddedFont(pdf, embedded);
  return embedded;
}

/** PLACEHOLDER is drawn for a character no bundled font has (a visible box with "?"); it extracts as itself. */
const PLACEHOLDER = "\ufffd";
const PLACEHOLDER_CODE = 0xfffd;

// Format characters (ZWJ, variation selectors, bidi controls, ...) that draw nothing when no font has them.
const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;

/**
 * DocumentFonts hands out the fonts of one document: the primary styles on first use and a
 * fallback (CJK, then the further fallbacks in order) only when a character needs it, so a
 * Latin-only page embeds no other glyph data. A character no font has is never drawn with glyph 0
 * or another character's glyph: it becomes PLACEHOLDER (see typed()).
 */
export class DocumentFonts {
  private readonly embedded = new Map<number, EmbeddedFont>();
  private readonly files: FontSource[];

  constructor(
    private readonly pdf: PDF,
    files: FontFiles,
  ) {
    // Indices: 0 regular, 1 bold, 2 mono, then the fallback chain.
    this.files = [files.regular, files.bold, files.mono, files.cjk, ...(files.fallbacks ?? [])];
  }

  private readonly twins = new Map<EmbeddedFont, EmbeddedFont>();

  /**
   * twin is a second embedding of a font's program, for glyphs that must extract as another
   * character than in the font itself: a bracket mirrored in right-to-left text shows ")" but
   * extracts as the "(" typed. A font maps each glyph to one character (ToUnicode), so the
   * mirrored uses get their own copy (a subset of a few glyphs).
   */
  twin(font: EmbeddedFont): EmbeddedFont {
    let twin = this.twins.get(font);
    if (!twin) {
      const index = [...this.embedded].find(([, embedded]) => embedded === font)![0];
      twin = embedParsed(this.pdf, parse(this.file(index)));
      this.twins.set(font, twin);
    }
    return twin;
  }

  /** file is the program of font `index`, read on first use when it is given as a function. */
  private file(index: number): Uint8Array {
    const source = this.files[index]!;
    if (typeof source !== "function") return source;
    const data = source();
    this.files[index] = data;
    return data;
  }

  private get(index: number): EmbeddedFont {
    let font = this.embedded.get(index);
    if (!font) {
      font = embedParsed(this.pdf, parse(this.file(index)));
      this.embedded.set(index, font);
    }
    return font;
  }

  private has(index: number, code: number): boolean {
    return hasGlyph(parse(this.file(index)), code);
  }

  /** fontFor picks the font that draws a character: the style's own, else the first fallback that has it (undefined: none). */
  private fontFor(code: number, style: FontStyle, previous: number | undefined): number | undefined {
    const primary = STYLE_INDEX[style];
    // A combining mark, joiner, variation selector or emoji modifier stays in the font before it.
    if (previous !== undefined && continuesCluster(code) && this.has(previous, code)) return previous;
    if (this.has(primary, code)) return primary;
    for (let index = 3; index < this.files.length; index++) if (this.has(index, code)) return index;
    return undefined;
  }

  /** covers tells whether some bundled font has a glyph for a character. */
  covers(char: string): boolean {
    return this.fontFor(char.codePointAt(0)!, "regular", undefined) !== undefined;
  }

  /** typed is text as the page will show it: a character no font has becomes PLACEHOLDER, an ignorable one is kept. */
  typed(text: string): string {
    let out = "";
    for (const char of text) out += this.covers(char) || IGNORABLE.test(char) ? char : PLACEHOLDER;
    return out;
  }

  /**
   * split splits text (already in visual order) into pieces by the font that has each character,
   * one piece per font change: a character no font has becomes PLACEHOLDER, an ignorable one none.
   */
  private split(text: string, style: FontStyle): Array<{ text: string; index: number }> {
    const pieces: Array<{ text: string; index: number }> = [];
    for (const char of text) {
      let draw = char;
      let index = this.fontFor(char.codePointAt(0)!, style, pieces.at(-1)?.index);
      if (index === undefined) {
        if (IGNORABLE.test(char)) continue;
        draw = PLACEHOLDER;
        index = this.fontFor(PLACEHOLDER_CODE, style, undefined) ?? STYLE_INDEX[style];
      }
      const last = pieces.at(-1);
      if (last && last.index === index) last.text += draw;
      else pieces.push({ text: draw, index });
    }
    return pieces;
  }

  /** runs splits text (already in visual order) into runs by the font that has each character. */
  runs(text: string, style: FontStyle, size: number): TextRun[] {
    return this.split(text, style).map((run) => {
      const font = this.get(run.index);
      if (!NEEDS_SHAPING.test(run.text)) return { text: run.text, font, width: (this.advanceUnits(run.index, run.text) * size) / 1000 };
      return { text: run.text, font, ...shape(this.file(run.index), run.text, size) };
    });
  }

  /** advanceUnits is text's width in font `index` in 1/1000 em from the remembered advances (as libpdf's widthOfTextAtSize, without its glyph tracking). */
  private advanceUnits(index: number, text: string): number {
    const font = parse(this.file(index));
    let units = 0;
    for (const char of text) units += advance(font, char.codePointAt(0)!);
    return units;
  }

  /**
   * finalize makes the PDF objects of every font this document drew with, now: a subset the
   * process made before for the same glyphs is copied (font-subsets.ts). Nothing may be drawn
   * with these fonts afterwards.
   */
  finalize(): void {
    for (const font of [...this.embedded.values(), ...this.twins.values()]) finalizeSubset(this.pdf, font);
  }

  /**
   * width measures text as runs() would draw it: from advances remembered per font program (no
   * embedding, no glyph tracking), unless it needs shaping.
   */
  width(text: string, style: FontStyle, size: number): number {
    if (NEEDS_SHAPING.test(text)) return this.runs(text, style, size).reduce((sum, run) => sum + run.width, 0);
    let units = 0;
    for (const piece of this.split(text, style)) units += this.advanceUnits(piece.index, piece.text);
    return (units * size) / 1000;
  }
}

const STYLE_INDEX: Record<FontStyle, number> = { regular: 0, bold: 1, mono: 2 };
// Runs with text that needs a shaper (reordering, conjuncts, mark placement, emoji sequences) are
// shaped with HarfBuzz and drawn as outlines over invisible text; other runs keep cmap glyphs and a subset
// font (Arabic is shaped by shapeArabic before; plain emoji need no shaping).
const NEEDS_SHAPING = /[\p{Script=Devanagari}\p{Script=Tamil}\p{Script=Thai}\u{1F1E6}-\u{1F1FF}\u{1F3FB}-\u{1F3FF}\u200d\u20e3]/u;
// Characters that continue the cluster before them, so they stay in its font when it has them.
const CONTINUES_CLUSTER = /^[\p{M}\p{Default_Ignorable_Code_Point}\u{1F3FB}-\u{1F3FF}\u20e3]$/u;
