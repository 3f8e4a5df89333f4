import { PDF, type EmbeddedFont } from "@libpdf/core";
import bidiFactory, { type Bidi } from "bidi-js";
import * as hb from "harfbuzzjs";
import { registerEmbeddedFont } from "#domain/pdf/libpdf-internals.ts";

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

/** OutlineSegment is one path operator of a glyph outline, its coordinates in font units from the glyph's origin. */
export type OutlineSegment = readonly ["m" | "l", number, number] | readonly ["c", number, number, number, number, number, number] | readonly ["h"];

/**
 * ShapedGlyph is one glyph HarfBuzz placed: its id, its origin relative to the run's start in
 * points, and its outline in font units (one array per glyph of a font, shared by every use).
 */
export interface ShapedGlyph {
  gid: number;
  x: number;
  y: number;
  outline: readonly OutlineSegment[];
}

/**
 * TextRun is a piece of text drawn with one font; `glyphs` when it was shaped: then its glyphs
 * are drawn as outlines and `text` as invisible text in the font's own glyphs (see textOperators).
 */
export interface TextRun {
  text: string;
  font: EmbeddedFont;
  width: number;
  glyphs?: ShapedGlyph[] | undefined;
  /** Points per font unit at the run's size (shaped runs: scales the outlines). */
  scale?: number | undefined;
}

// HarfBuzz font objects, one per font program per container (like the parsed programs above),
// with the outlines of the glyphs drawn so far, in font units.
const shapers = new WeakMap<Uint8Array, { font: hb.Font; upem: number; outlines: Map<number, OutlineSegment[]> }>();

function shaperFor(data: Uint8Array): { font: hb.Font; upem: number; outlines: Map<number, OutlineSegment[]> } {
  let shaper = shapers.get(data);
  if (!shaper) {
    const face = new hb.Face(new hb.Blob(data));
    shaper = { font: new hb.Font(face), upem: face.upem, outlines: new Map() };
    shapers.set(data, shaper);
  }
  return shaper;
}

/** outlineOf reads a glyph's outline (font units) from HarfBuzz, quadratic curves raised to cubic ones (PDF has no quadratic). */
function outlineOf(font: hb.Font, gid: number): OutlineSegment[] {
  const segments: OutlineSegment[] = [];
  let x0 = 0;
  let y0 = 0;
  const funcs = new hb.DrawFuncs();
  funcs.setMoveToFunc((x, y) => {
    segments.push(["m", x, y]);
    [x0, y0] = [x, y];
  });
  funcs.setLineToFunc((x, y) => {
    segments.push(["l", x, y]);
    [x0, y0] = [x, y];
  });
  funcs.setQuadraticToFunc((cx, cy, x, y) => {
    segments.push(["c", x0 + ((cx - x0) * 2) / 3, y0 + ((cy - y0) * 2) / 3, x + ((cx - x) * 2) / 3, y + ((cy - y) * 2) / 3, x, y]);
    [x0, y0] = [x, y];
  });
  funcs.setCubicToFunc((c1x, c1y, c2x, c2y, x, y) => {
    segments.push(["c", c1x, c1y, c2x, c2y, x, y]);
    [x0, y0] = [x, y];
  });
  funcs.setClosePathFunc(() => segments.push(["h"]));
  font.drawGlyph(gid, funcs);
  return segments;
}

/**
 * shape runs HarfBuzz over one run: reordering (Devanagari i-matra, Tamil prefix vowels),
 * conjuncts and ligatures, mark positioning, emoji sequences (flags, ZWJ). Positions are scaled
 * from font units to points at `size`; outlines stay in font units (`scale` converts them).
 */
function shape(data: Uint8Array, text: string, size: number): { glyphs: ShapedGlyph[]; width: number; scale: number } {
  const { font, upem, outlines } = shaperFor(data);
  const scale = size / upem;
  const buffer = new hb.Buffer();
  buffer.addText(text);
  buffer.guessSegmentProperties();
  hb.shape(font, buffer);
  const positions = buffer.getGlyphPositions();
  const glyphs: ShapedGlyph[] = [];
  let pen = 0;
  buffer.getGlyphInfos().forEach((info, i) => {
    const position = positions[i]!;
    let outline = outlines.get(info.codepoint);
    if (!outline) {
      outline = outlineOf(font, info.codepoint);
      outlines.set(info.codepoint, outline);
    }
    glyphs.push({ gid: info.codepoint, x: (pen + position.xOffset) * scale, y: position.yOffset * scale, outline });
    pen += position.xAdvance;
  });
  return { glyphs, width: pen * scale, scale };
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
      if (!NEEDS_SHAPING.test(run.text)) return { text: run.text, font, width: font.widthOfTextAtSize(run.text, size) };
      return { text: run.text, font, ...shape(this.file(run.index), run.text, size) };
    });
  }

  /**
   * width measures text as runs() would draw it: from advances remembered per font program (no
   * embedding, no glyph tracking), unless it needs shaping.
   */
  width(text: string, style: FontStyle, size: number): number {
    if (NEEDS_SHAPING.test(text)) return this.runs(text, style, size).reduce((sum, run) => sum + run.width, 0);
    let units = 0;
    for (const piece of this.split(text, style)) {
      const font = parse(this.file(piece.index));
      for (const char of piece.text) units += advance(font, char.codePointAt(0)!);
    }
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

/**
 * wrapText breaks a paragraph into lines no wider than maxWidth: at spaces when it can, inside a
 * word when the word alone is too wide (user agents, digests, CJK text without spaces).
 */
export function wrapText(text: string, maxWidth: number, measure: (text: string) => number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    // Most values fit on one line: one measurement instead of one per word.
    if (measure(paragraph.trimEnd()) <= maxWidth) {
      lines.push(paragraph.trimEnd());
      continue;
    }
    let line = "";
    for (const word of paragraph.split(/(?<=\s)/)) {
      if (measure(line + word.trimEnd()) <= maxWidth) {
        line += word;
        continue;
      }
      if (line.trim()) lines.push(line.trimEnd());
      line = "";
      if (measure(word.trimEnd()) <= maxWidth) {
        line = word;
        continue;
      }
      for (const char of word) {
        if (line && measure(line + char) > maxWidth) {
          lines.push(line);
          line = "";
        }
        line += char;
      }
    }
    lines.push(line.trimEnd());
  }
  return lines;
}

// Arabic letters' presentation forms (isolated, final, initial, medial); two forms: joins right only.
const ARABIC_FORMS: Record<number, number[]> = {
  0x0621: [0xfe80],
  0x0622: [0xfe81, 0xfe82],
  0x0623: [0xfe83, 0xfe84],
  0x0624: [0xfe85, 0xfe86],
  0x0625: [0xfe87, 0xfe88],
  0x0626: [0xfe89, 0xfe8a, 0xfe8b, 0xfe8c],
  0x0627: [0xfe8d, 0xfe8e],
  0x0628: [0xfe8f, 0xfe90, 0xfe91, 0xfe92],
  0x0629: [0xfe93, 0xfe94],
  0x062a: [0xfe95, 0xfe96, 0xfe97, 0xfe98],
  0x062b: [0xfe99, 0xfe9a, 0xfe9b, 0xfe9c],
  0x062c: [0xfe9d, 0xfe9e, 0xfe9f, 0xfea0],
  0x062d: [0xfea1, 0xfea2, 0xfea3, 0xfea4],
  0x062e: [0xfea5, 0xfea6, 0xfea7, 0xfea8],
  0x062f: [0xfea9, 0xfeaa],
  0x0630: [0xfeab, 0xfeac],
  0x0631: [0xfead, 0xfeae],
  0x0632: [0xfeaf, 0xfeb0],
  0x0633: [0xfeb1, 0xfeb2, 0xfeb3, 0xfeb4],
  0x0634: [0xfeb5, 0xfeb6, 0xfeb7, 0xfeb8],
  0x0635: [0xfeb9, 0xfeba, 0xfebb, 0xfebc],
  0x0636: [0xfebd, 0xfebe, 0xfebf, 0xfec0],
  0x0637: [0xfec1, 0xfec2, 0xfec3, 0xfec4],
  0x0638: [0xfec5, 0xfec6, 0xfec7, 0xfec8],
  0x0639: [0xfec9, 0xfeca, 0xfecb, 0xfecc],
  0x063a: [0xfecd, 0xfece, 0xfecf, 0xfed0],
  0x0641: [0xfed1, 0xfed2, 0xfed3, 0xfed4],
  0x0642: [0xfed5, 0xfed6, 0xfed7, 0xfed8],
  0x0643: [0xfed9, 0xfeda, 0xfedb, 0xfedc],
  0x0644: [0xfedd, 0xfede, 0xfedf, 0xfee0],
  0x0645: [0xfee1, 0xfee2, 0xfee3, 0xfee4],
  0x0646: [0xfee5, 0xfee6, 0xfee7, 0xfee8],
  0x0647: [0xfee9, 0xfeea, 0xfeeb, 0xfeec],
  0x0648: [0xfeed, 0xfeee],
  0x0649: [0xfeef, 0xfef0],
  0x064a: [0xfef1, 0xfef2, 0xfef3, 0xfef4],
};
// Lam followed by an alef variant becomes one ligature (isolated, final).
const LAM_ALEF: Record<number, number[]> = { 0x0622: [0xfef5, 0xfef6], 0x0623: [0xfef7, 0xfef8], 0x0625: [0xfef9, 0xfefa], 0x0627: [0xfefb, 0xfefc] };

const joinsLeft = (code: number | undefined) => code !== undefined && (ARABIC_FORMS[code]?.length ?? 0) === 4;
const joins = (code: number | undefined) => code !== undefined && ARABIC_FORMS[code] !== undefined && code !== 0x0621;
// Arabic marks (harakat, superscript alef, Quranic marks) are transparent to joining.
const isArabicMark = (code: number) => (code >= 0x064b && code <= 0x065f) || code === 0x0670 || (code >= 0x06d6 && code <= 0x06ed);

/**
 * shapeArabic gives each UTF-16 unit of a logical string what to draw for it: Arabic letters their
 * contextual presentation form (joining looks past marks), lam + alef one ligature (the alef's
 * unit then draws nothing), everything else itself. Same length as the text, so bidi indices hold.
 */
function shapeArabic(text: string): string[] {
  const units = text.split("");
  const neighbour = (from: number, step: 1 | -1): number | undefined => {
    for (let i = from + step; i >= 0 && i < text.length; i += step) {
      const code = text.charCodeAt(i);
      if (!isArabicMark(code)) return i;
    }
    return undefined;
  };
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const forms = ARABIC_FORMS[code];
    if (!forms) continue;
    const before = neighbour(index, -1);
    const joinedBefore = before !== undefined && joinsLeft(text.charCodeAt(before)) && units[before] !== "";
    const after = neighbour(index, 1);
    const next = after === undefined ? undefined : text.charCodeAt(after);
    if (code === 0x0644 && next !== undefined && LAM_ALEF[next]) {
      units[index] = String.fromCharCode(LAM_ALEF[next]![joinedBefore ? 1 : 0]!);
      units[after!] = "";
      index = after!;
      continue;
    }
    const joinedAfter = forms.length === 4 && joins(next);
    const form = joinedBefore ? (joinedAfter ? 3 : 1) : joinedAfter ? 2 : 0;
    units[index] = String.fromCharCode(forms[Math.min(form, forms.length - 1)] ?? forms[0]!);
  }
  return units;
}

// bidi-js is CommonJS: under Node ESM its default import is module.exports, the factory itself.
const bidi = (bidiFactory as unknown as () => Bidi)();

/** Direction is a paragraph's base direction. */
export type Direction = "ltr" | "rtl";

// Characters that can make a text anything but plain left to right: Hebrew, Arabic, Syriac, Thaana,
// NKo, Samaritan, Mandaic, their presentation forms, RTL scripts beyond the BMP, and bidi controls.
const MAY_NEED_BIDI = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u200f\u202a-\u202e\u2066-\u2069\u061c]|[\ud802\ud803\ud83a\ud83b][\udc00-\udfff]/;
const MARK = /^\p{M}$/u;

/** paragraphDirection is the base direction UAX #9 (rules P2, P3) gives a paragraph: that of its first strong character, else left to right. */
export function paragraphDirection(text: string): Direction {
  if (!MAY_NEED_BIDI.test(text)) return "ltr";
  const level = bidi.getEmbeddingLevels(text, "auto").paragraphs[0]?.level ?? 0;
  return level % 2 === 1 ? "rtl" : "ltr";
}

/**
 * VisualCluster is one base character with its combining marks, placed by the bidi algorithm:
 * `logical` is what was typed (from `start` in the line), `draw` the characters whose glyphs show
 * it (contextual Arabic form, mirrored bracket; empty for the alef a lam-alef ligature absorbed).
 */
export interface VisualCluster {
  start: number;
  logical: string;
  draw: string;
  /** Set when `draw` is the bracket mirrored from `logical` (a right-to-left run). */
  mirrored: boolean;
  /** The UAX #9 embedding level: odd for right to left. */
  level: number;
}

/**
 * visualClusters lays one line out for a left-to-right drawing: it runs the Unicode
 * Bidirectional Algorithm (UAX #9, bidi-js) with the given paragraph direction (from the text
 * itself when "auto"), mirrors brackets in right-to-left runs, gives Arabic letters their
 * contextual forms, and returns the clusters in visual order, each base character together with
 * its combining marks and surrogate pairs intact.
 */
export function visualClusters(
  text: string,
  direction: Direction | "auto" = "auto",
  glyphs: { shape: boolean; mirror: boolean } = { shape: true, mirror: true },
): VisualCluster[] {
  const levels = bidi.getEmbeddingLevels(text, direction);
  const mirrored = glyphs.mirror ? bidi.getMirroredCharactersMap(text, levels.levels) : new Map<number, string>();
  const shaped = glyphs.shape ? shapeArabic(text) : text.split("");
  // clusterStart[i]: the first unit of the cluster (a base character and its marks) holding unit i.
  const clusterStart = new Int32Array(text.length);
  for (let i = 0, base = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const low = code >= 0xdc00 && code <= 0xdfff && i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff;
    if (low) {
      clusterStart[i] = clusterStart[i - 1]!;
      continue;
    }
    if (i > 0 && MARK.test(String.fromCodePoint(text.codePointAt(i)!))) {
      clusterStart[i] = base;
      continue;
    }
    base = i;
    clusterStart[i] = i;
  }
  const emitted = new Uint8Array(text.length);
  const out: VisualCluster[] = [];
  for (const index of bidi.getReorderedIndices(text, levels)) {
    const start = clusterStart[index]!;
    if (emitted[start]) continue;
    emitted[start] = 1;
    let end = start;
    let draw = "";
    let flipped = false;
    for (; end < text.length && clusterStart[end] === start; end++) {
      const mirror = mirrored.get(end);
      if (mirror !== undefined) flipped = true;
      draw += mirror ?? shaped[end]!;
    }
    out.push({ start, logical: text.slice(start, end), draw, mirrored: flipped, level: levels.levels[start]! });
  }
  return out;
}

/** needsBidi tells whether a line in the given direction can draw in anything but typed order. */
export function needsBidi(text: string, direction: Direction | "auto" = "auto"): boolean {
  return direction === "rtl" || MAY_NEED_BIDI.test(text);
}

/** visualOrder is the line as drawn left to right (see visualClusters), as one string. */
export function visualOrder(
  text: string,
  direction: Direction | "auto" = "auto",
  glyphs: { shape: boolean; mirror: boolean } = { shape: true, mirror: true },
): string {
  if (!needsBidi(text, direction)) return text;
  return visualClusters(text, direction, glyphs)
    .map((cluster) => cluster.draw)
    .join("");
}
