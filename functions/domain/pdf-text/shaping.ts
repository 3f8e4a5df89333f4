import type { EmbeddedFont } from "@libpdf/core";
import * as hb from "harfbuzzjs";

// Shaping with HarfBuzz for scripts that need it (reordering, conjuncts, mark placement, emoji
// sequences): positioned glyphs and their outlines, drawn as paths over invisible text.

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
export function shape(data: Uint8Array, text: string, size: number): { glyphs: ShapedGlyph[]; width: number; scale: number } {
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
