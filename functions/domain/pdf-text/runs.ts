// Text runs: a line of text shaped into pieces (per direction and script, through pdf-text/), and
// the /ActualText a drawn line extracts as.
import { needsBidi, visualClusters, type Direction, type VisualCluster } from "#domain/pdf-text/bidi.ts";
import type { DocumentFonts, FontStyle } from "#domain/pdf-text/fonts.ts";
import type { TextRun } from "#domain/pdf-text/shaping.ts";

/** Piece is text drawn from one origin: a whole left-to-right line, or one piece of a line that needs bidi (see linePieces). */
export interface Piece {
  runs: TextRun[];
  /** Offset from the line's left end, in points. */
  x: number;
  width: number;
  /** Drawn invisibly, for extraction only (the alef a lam-alef ligature drew). */
  invisible?: boolean | undefined;
  /** What the glyphs extract as (ToUnicode) when it differs from what they show (Arabic contextual forms). */
  extractAs?: string | undefined;
  /**
   * A right-to-left base character with combining marks: the marks (zero advance, drawn by the
   * font to sit on a base that follows them, as HarfBuzz orders them) go at the piece's origin,
   * after the base in drawing order so they extract after it.
   */
  marksAtOrigin?: boolean | undefined;
}

/**
 * linePieces lays out one line. A line in one direction is one piece. A line that needs bidi is
 * cut into pieces placed at their visual positions but listed (and drawn) in typed order: a
 * left-to-right stretch is one piece, each right-to-left character (with its marks) one piece.
 * Readers that extract the glyphs in drawing order through ToUnicode (MuPDF 1.21) then read the
 * typed order; each Arabic form extracts as its base letter, a mirrored bracket as the bracket
 * typed (through a twin font), and the alef of a lam-alef ligature is drawn invisibly, so every
 * glyph extracts as the character the signer typed.
 */
export function linePieces(fonts: DocumentFonts, text: string, direction: Direction, style: FontStyle, size: number): { pieces: Piece[]; width: number } {
  if (!needsBidi(text, direction)) {
    const runs = fonts.runs(text, style, size);
    const width = runs.reduce((sum, run) => sum + run.width, 0);
    return { pieces: [{ runs, x: 0, width }], width };
  }
  const groups: VisualCluster[][] = [];
  for (const cluster of visualClusters(text, direction)) {
    const last = groups.at(-1)?.at(-1);
    const continues =
      last &&
      cluster.level % 2 === 0 &&
      last.level === cluster.level &&
      !last.mirrored &&
      !cluster.mirrored &&
      cluster.start === last.start + last.logical.length;
    if (continues) groups.at(-1)!.push(cluster);
    else groups.push([cluster]);
  }
  const pieces: Array<Piece & { start: number; level: number; blank: boolean }> = [];
  let x = 0;
  for (const group of groups) {
    const logical = group.map((cluster) => cluster.logical).join("");
    const draw = group.map((cluster) => cluster.draw).join("");
    const start = group[0]!.start;
    if (draw === "") {
      pieces.push({ start, runs: fonts.runs(logical, style, size), x, width: 0, invisible: true, level: group[0]!.level, blank: false });
      continue;
    }
    let runs = fonts.runs(draw, style, size);
    if (group[0]!.mirrored) runs = runs.map((run) => ({ ...run, font: fonts.twin(run.font) }));
    const width = runs.reduce((sum, run) => sum + run.width, 0);
    const extractAs = draw !== logical && Array.from(draw).length === Array.from(logical).length ? logical : undefined;
    const marksAtOrigin = group[0]!.level % 2 === 1 && Array.from(draw).length > 1;
    pieces.push({ start, runs, x, width, extractAs, marksAtOrigin, level: group[0]!.level, blank: /^\s+$/u.test(draw) });
    x += width;
  }
  pieces.sort((p, q) => p.start - q.start);
  // MuPDF starts a new line when a left-to-right character lands far from where the previous one
  // ended (a right-to-left one never does). A space between a right-to-left word and a
  // left-to-right run is blank, so it is drawn where it keeps that jump small: just before the
  // run it leads into, or just after the run it follows.
  pieces.forEach((piece, index) => {
    if (!piece.blank) return;
    const before = pieces[index - 1];
    const after = pieces[index + 1];
    if (!before || !after) return;
    if (before.level % 2 === 1 && after.level % 2 === 0) piece.x = after.x - piece.width;
    else if (before.level % 2 === 0 && after.level % 2 === 1) piece.x = before.x + before.width;
  });
  return { pieces, width: x };
}

// What poppler counts as right-to-left, and as left-to-right or a number (TextOutputDev's
// unicodeTypeR / unicodeTypeL / unicodeTypeNum, approximately).
const POPPLER_RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
const POPPLER_LTR_OR_NUMBER = /[\p{L}\p{N}]/u;
const LRM = "\u200e";

/**
 * extractionText is the /ActualText of a drawn line: the typed text in NFC, never the glyphs
 * drawn for it (Arabic presentation forms, mirrored brackets, a fallback placeholder), so text
 * extraction and search find what the signer typed.
 *
 * Its order is chosen for poppler (pdftotext, Evince, Okular), which lays an ActualText's
 * characters across the span left to right, then treats them as drawn glyphs: it reverses every
 * section that starts with a right-to-left character and runs until a letter or digit of another
 * kind. ActualText in plain logical order came out with every Hebrew and Arabic word reversed, so
 * those sections are given reversed here and poppler turns them back: pdftotext then returns the
 * logical string (spaces at a direction change may move). MuPDF 1.21 ignores /ActualText and reads
 * the glyphs in drawing order, which linePieces makes the typed order. A reader that took this
 * /ActualText literally would get those words reversed (none at hand does: checked with poppler
 * 22.12 and MuPDF 1.21).
 */
export function extractionText(text: string): string {
  const chars = Array.from(text.normalize("NFC"));
  if (!chars.some((char) => POPPLER_RTL.test(char))) return chars.join("");
  const out: string[] = [];
  let i = 0;
  while (i < chars.length) {
    let j = i;
    while (j < chars.length && !POPPLER_RTL.test(chars[j]!)) j++;
    out.push(...chars.slice(i, j));
    i = j;
    while (j < chars.length && (POPPLER_RTL.test(chars[j]!) || !POPPLER_LTR_OR_NUMBER.test(chars[j]!))) j++;
    // Neutrals after the last right-to-left character stay after it (poppler would move them in front).
    let last = j;
    while (last > i && !POPPLER_RTL.test(chars[last - 1]!)) last--;
    out.push(...chars.slice(i, last).reverse());
    if (last < j) out.push(LRM, ...chars.slice(last, j));
    i = j;
  }
  return out.join("");
}
