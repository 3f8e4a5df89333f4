import bidiFactory, { type Bidi } from "bidi-js";
import { shapeArabic } from "#domain/pdf-text/arabic-forms.ts";

// The Unicode bidirectional algorithm (UAX #9, through bidi-js) for lines mixing directions: base
// direction, visual order, and the clusters a line is drawn as.

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
