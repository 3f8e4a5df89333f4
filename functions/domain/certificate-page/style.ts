// The certificate page's look in one table: page sizes, margins, colours, each block's type sizes and spacing.
import type { Color } from "#domain/pdf-text/operators.ts";

export type { Color };

/** PageSize is a page's width and height in points. */
export interface PageSize {
  width: number;
  height: number;
}

/** STYLE is the certificate page's look in one place: page, colours, and each block's type sizes and spacing (points). */
export const STYLE = {
  page: {
    /** A4 portrait: the page when the document gives none (or one too small or too large to hold the layout). */
    fallback: { width: 595.28, height: 841.89 } as PageSize,
    /** The smallest page the layout fits on (A5 portrait); a smaller document page gets A4. */
    min: { width: 419.53, height: 419.53 } as PageSize,
    /** The largest page PDF allows (200 inches). */
    maxSide: 14_400,
    margin: { left: 56, right: 56, top: 60, bottom: 72 },
  },
  color: {
    ink: [0.11, 0.13, 0.17] as Color,
    muted: [0.42, 0.45, 0.5] as Color,
    accent: [0.11, 0.3, 0.55] as Color,
    rule: [0.82, 0.84, 0.87] as Color,
    band: [0.94, 0.95, 0.97] as Color,
  },
  title: { size: 22, after: 18, subtitleSize: 10, subtitleAfter: 10, ruleThickness: 1.2, ruleAfter: 6 },
  /** The heading of a continuation page. */
  continued: { size: 11, after: 24 },
  rule: { thickness: 0.6 },
  section: { size: 9, height: 34, keepWith: 14, before: 14, ruleGap: 6, after: 14 },
  field: { labelWidth: 128, labelSize: 9, size: 10, monoSize: 8.5, leading: 3.5, after: 3 },
  events: {
    columns: { index: 28, time: 128, type: 78 },
    inset: 4,
    size: 8.5,
    lineHeight: 11.5,
    header: { bandBelow: 5, bandHeight: 16, after: 18 },
    /** A row taller than this many lines may break across pages. */
    keptLines: 40,
    rowPadding: 4,
    separator: { above: 3.5, thickness: 0.5 },
    after: 3,
    /** The heading stays with the table header and at least two rows. */
    keepWith: 18 + 2 * 15,
    noteSize: 8.5,
    noteAfter: 14,
  },
  verify: { size: 9, lineHeight: 13, keepWith: 4 * 13 },
  footer: { size: 8, ruleY: 48, textY: 36 },
} as const;
