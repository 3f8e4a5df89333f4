import { createHash } from "node:crypto";
import { ops, PdfDict, PdfString, type PDF, type PDFFormXObject, type PDFPage } from "@libpdf/core";
import { extractGlyphAs } from "#domain/pdf/libpdf-internals.ts";
import { appendPage } from "#domain/pdf/page-tree.ts";
import { needsBidi, paragraphDirection, visualClusters, visualOrder, type Direction, type VisualCluster } from "#domain/pdf-text/bidi.ts";
import { DocumentFonts, type FontFiles, type FontStyle } from "#domain/pdf-text/fonts.ts";
import type { OutlineSegment, TextRun } from "#domain/pdf-text/shaping.ts";
import { wrapText } from "#domain/pdf-text/wrap.ts";

/** AuditEvent is one entry of the signer's audit trail. */
export interface AuditEvent {
  type: string;
  timestamp: string;
  data?: Record<string, unknown> | undefined;
}

/** AuditCertificate is everything the certificate page shows (docs/api.md, "Sign and verify"). */
export interface AuditCertificate {
  /** The document's title, or its file name, when known. */
  documentName?: string | undefined;
  /** SHA-256 (hex) of the document as received. */
  documentSha256: string;
  /** Pages of the document before the certificate was added. */
  documentPages: number;
  eventId?: string | undefined;
  signer: { name: string; email: string; ip?: string | undefined; userAgent?: string | undefined };
  events: AuditEvent[];
  signingTime: Date;
  service: { subject: string; fingerprint: string; algorithm: string };
  /** SHA-256 (hex) of the PDF converted from DOCX input, which is what gets signed. */
  convertedPdfSha256?: string | undefined;
  /** Set when Signet rewrote the PDF once before signing (repair, hybrid made plain): why, and the rewrite's SHA-256. */
  rewrittenPdf?: { reason: string; sha256: string } | undefined;
  /** Signatures the document already carries, in document order. */
  existingSignatures?: Array<{ signer: string; signedAt?: Date | undefined }> | undefined;
  /** Set when the signature gets an RFC 3161 timestamp. */
  timestampAuthority?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
}

/** PageSize is a page's width and height in points. */
export interface PageSize {
  width: number;
  height: number;
}

type Color = readonly [number, number, number];

/** STYLE is the certificate page's look in one place: page, colours, and each block's type sizes and spacing (points). */
const STYLE = {
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

const { margin: MARGIN } = STYLE.page;
const { ink: INK, muted: MUTED, accent: ACCENT, rule: RULE, band: BAND } = STYLE.color;

type Operator = ReturnType<typeof ops.beginText>;
/** DrawOp appends the operators of one drawing to a page's single content stream. */
type DrawOp = (page: PDFPage, out: Operator[]) => void;

/** Piece is text drawn from one origin: a whole left-to-right line, or one piece of a line that needs bidi (see linePieces). */
interface Piece {
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
function linePieces(fonts: DocumentFonts, text: string, direction: Direction, style: FontStyle, size: number): { pieces: Piece[]; width: number } {
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

/**
 * GlyphForms makes each glyph outline a form XObject once per document (filled with the current
 * colour, nonzero winding like TrueType), so a glyph drawn on many lines is stored once.
 */
class GlyphForms {
  private readonly forms = new Map<readonly OutlineSegment[], PDFFormXObject>();

  constructor(private readonly pdf: PDF) {}

  of(outline: readonly OutlineSegment[]): PDFFormXObject {
    let form = this.forms.get(outline);
    if (!form) {
      const xs: number[] = [0];
      const ys: number[] = [0];
      const operators = outline.map((segment) => {
        for (let i = 1; i < segment.length; i += 2) {
          xs.push(segment[i] as number);
          ys.push(segment[i + 1] as number);
        }
        switch (segment[0]) {
          case "m":
            return ops.moveTo(segment[1], segment[2]);
          case "l":
            return ops.lineTo(segment[1], segment[2]);
          case "c":
            return ops.curveTo(segment[1], segment[2], segment[3], segment[4], segment[5], segment[6]);
          default:
            return ops.closePath();
        }
      });
      const [left, bottom] = [Math.floor(Math.min(...xs)), Math.floor(Math.min(...ys))];
      const bbox = { x: left, y: bottom, width: Math.ceil(Math.max(...xs)) - left, height: Math.ceil(Math.max(...ys)) - bottom };
      form = this.pdf.createFormXObject({ bbox, operators: outline.length > 0 ? [...operators, ops.fill()] : [] });
      this.forms.set(outline, form);
    }
    return form;
  }
}

/** gidBytes encodes glyph ids for an Identity-H font (two bytes each). */
function gidBytes(gids: readonly number[]): PdfString {
  const bytes = new Uint8Array(gids.length * 2);
  gids.forEach((gid, index) => {
    bytes[index * 2] = gid >> 8;
    bytes[index * 2 + 1] = gid & 0xff;
  });
  return PdfString.fromBytes(bytes);
}

/**
 * textOperators draws a line's pieces from (x, y); glyph ids are what Identity-H fonts show.
 * The drawing is one marked-content span with `actualText` (see extractionText), so extraction
 * gives the characters the signer typed, never the presentation forms or glyphs drawn for them.
 */
function textOperators(
  page: PDFPage,
  forms: GlyphForms,
  out: Operator[],
  pieces: Piece[],
  x: number,
  y: number,
  size: number,
  color: Color,
  actualText: string,
): void {
  out.push(ops.beginMarkedContentProps("/Span", PdfDict.of({ ActualText: PdfString.fromString(actualText) })));
  out.push(ops.setNonStrokingRGB(...color), ops.beginText());
  for (const piece of pieces) {
    if (piece.invisible) out.push(ops.setTextRenderMode(3));
    let left = x + piece.x;
    const extractAs = piece.extractAs ? Array.from(piece.extractAs) : undefined;
    let offset = 0;
    for (const run of piece.runs) {
      out.push(ops.setFont(`/${page.registerFont(run.font)}`, size));
      if (run.glyphs) {
        // Shaped: each glyph HarfBuzz placed is drawn as its outline (a form XObject per glyph and
        // document, painted outside the text object), and the run's characters as invisible text (render mode 3) in the
        // font's own glyphs, stretched over the run. Readers extract that text, every character
        // through the subset font's ToUnicode; a conjunct or flag has no character of its own to
        // map, which is why its glyph is not text.
        out.push(ops.endText());
        const scale = run.scale ?? 1;
        for (const glyph of run.glyphs) {
          const form = page.registerXObject(forms.of(glyph.outline));
          out.push(
            ops.pushGraphicsState(),
            ops.concatMatrix(scale, 0, 0, scale, left + glyph.x, y + glyph.y),
            ops.paintXObject(`/${form}`),
            ops.popGraphicsState(),
          );
        }
        out.push(ops.beginText());
        const gids = run.font.encodeTextToGids(run.text);
        const natural = run.font.widthOfTextAtSize(run.text, size);
        out.push(
          ops.setTextRenderMode(3),
          ops.setHorizontalScale(natural > 0 ? (run.width / natural) * 100 : 100),
          ops.setTextMatrix(1, 0, 0, 1, left, y),
          ops.showText(gidBytes(gids)),
          ops.setHorizontalScale(100),
          ops.setTextRenderMode(0),
        );
        left += run.width;
        continue;
      }
      const gids = run.font.encodeTextToGids(run.text);
      if (extractAs) {
        Array.from(run.text).forEach((char, index) => {
          const typed = extractAs[offset + index];
          if (typed !== undefined && typed !== char) extractGlyphAs(run.font, gids[index]!, typed.codePointAt(0)!);
        });
      }
      offset += gids.length;
      if (piece.marksAtOrigin) {
        // The base first (where it stands), then each mark at the piece's origin.
        const origin = x + piece.x;
        const before = offset - gids.length; // glyphs of this piece drawn by earlier runs
        for (const [index, gid] of gids.entries()) {
          out.push(ops.setTextMatrix(1, 0, 0, 1, before + index === 0 ? left : origin, y), ops.showText(gidBytes([gid])));
        }
      } else out.push(ops.setTextMatrix(1, 0, 0, 1, left, y), ops.showText(gidBytes(gids)));
      left += run.width;
    }
    if (piece.invisible) out.push(ops.setTextRenderMode(0));
  }
  out.push(ops.endText(), ops.endMarkedContent());
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
function extractionText(text: string): string {
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

/** formatUtc renders an instant as "2026-11-22 09:58:00 UTC" (milliseconds kept when present). */
export function formatUtc(date: Date): string {
  const iso = date.toISOString();
  const millis = iso.slice(19, 23);
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${millis === ".000" ? "" : millis} UTC`;
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/**
 * VALUE_LIMIT is the most characters (code points) of one value the page draws: an event's
 * details, a metadata value, a signer field. Shorter values are wrapped in full; a longer one
 * shows its first VALUE_LIMIT characters and the SHA-256 of the whole value, so nothing is cut
 * without saying so and the full value can still be matched against the page.
 */
export const VALUE_LIMIT = 4000;

/** boundValue applies VALUE_LIMIT: the value itself, or its start + "… (truncated; SHA-256 of the full value: …)". */
function boundValue(text: string): string {
  if (text.length <= VALUE_LIMIT) return text;
  const chars = Array.from(text);
  if (chars.length <= VALUE_LIMIT) return text;
  const digest = createHash("sha256").update(text, "utf8").digest("hex");
  return `${chars.slice(0, VALUE_LIMIT).join("")}… (truncated; SHA-256 of the full value: ${digest})`;
}

/** summarizeData turns an event's data into one readable line, "key: value; key: value", within VALUE_LIMIT. */
function summarizeData(data: Record<string, unknown> | undefined): string {
  if (!data) return "";
  const text = Object.entries(data)
    .map(([key, value]) => `${key}: ${formatValue(value)}`)
    .join("; ");
  return boundValue(text);
}

/** sortEvents orders audit events by time, keeping the given order for equal times. */
export function sortEvents(events: AuditEvent[]): AuditEvent[] {
  return events
    .map((event, index) => ({ event, index, at: Date.parse(event.timestamp) }))
    .sort((a, b) => a.at - b.at || a.index - b.index)
    .map((entry) => entry.event);
}

/** CertificateLayout collects drawing operations page by page, so "page x of y" is known at the end. */
class CertificateLayout {
  readonly pages: DrawOp[][] = [];
  private y = 0;

  constructor(
    readonly fonts: DocumentFonts,
    readonly forms: GlyphForms,
    readonly page: PageSize,
  ) {
    this.newPage(false);
  }

  /** contentWidth is the width between the margins. */
  get contentWidth(): number {
    return this.page.width - MARGIN.left - MARGIN.right;
  }

  /** right is the x of the right margin. */
  get right(): number {
    return this.page.width - MARGIN.right;
  }

  newPage(continued = true): void {
    this.pages.push([]);
    this.y = this.page.height - MARGIN.top;
    if (continued) {
      this.text("Audit trail certificate (continued)", MARGIN.left, this.y, "bold", STYLE.continued.size, ACCENT);
      this.y -= STYLE.continued.after;
    }
  }

  /** ensure starts a new page when `height` does not fit; returns true if it did. */
  ensure(height: number): boolean {
    if (this.y - height >= MARGIN.bottom) return false;
    this.newPage();
    return true;
  }

  get cursor(): number {
    return this.y;
  }

  advance(by: number): void {
    this.y -= by;
  }

  private op(draw: DrawOp): void {
    this.pages.at(-1)!.push(draw);
  }

  /** text draws one line at (x, y); with `right`, a right-to-left line ends there instead. */
  text(text: string, x: number, y: number, style: FontStyle, size: number, color: Color = INK, line: { direction?: Direction; right?: number } = {}): void {
    const direction = line.direction ?? paragraphDirection(text);
    const { pieces, width } = linePieces(this.fonts, text.normalize("NFC"), direction, style, size);
    const left = direction === "rtl" && line.right !== undefined ? line.right - width : x;
    const actual = extractionText(this.fonts.typed(text));
    this.op((page, out) => textOperators(page, this.forms, out, pieces, left, y, size, color, actual));
  }

  rule(y: number, color: Color = RULE, thickness: number = STYLE.rule.thickness): void {
    this.op((_page, out) =>
      out.push(ops.setStrokingRGB(...color), ops.setLineWidth(thickness), ops.moveTo(MARGIN.left, y), ops.lineTo(this.right, y), ops.stroke()),
    );
  }

  band(y: number, height: number): void {
    this.op((_page, out) => out.push(ops.setNonStrokingRGB(...BAND), ops.rectangle(MARGIN.left, y, this.contentWidth, height), ops.fill()));
  }

  /** wrap breaks text (in NFC, as text() draws it) into lines, each with the direction UAX #9 gives the paragraph it comes from. */
  wrap(text: string, width: number, style: FontStyle, size: number): Array<{ text: string; direction: Direction }> {
    return text
      .normalize("NFC")
      .split(/\r?\n/)
      .flatMap((paragraph) => {
        const direction = paragraphDirection(paragraph);
        return wrapText(paragraph, width, (line) => this.fonts.width(visualOrder(line, direction), style, size)).map((line) => ({ text: line, direction }));
      });
  }
}

/** section draws a heading; it moves to a new page unless `keepWith` points of what follows fit below it too. */
function section(layout: CertificateLayout, title: string, keepWith: number = STYLE.section.keepWith): void {
  const style = STYLE.section;
  layout.ensure(style.height + keepWith);
  layout.advance(style.before);
  layout.text(title.toUpperCase(), MARGIN.left, layout.cursor, "bold", style.size, ACCENT);
  layout.advance(style.ruleGap);
  layout.rule(layout.cursor);
  layout.advance(style.after);
}

function field(layout: CertificateLayout, label: string, value: string, style: FontStyle = "regular"): void {
  const look = STYLE.field;
  const size = style === "mono" ? look.monoSize : look.size;
  const lines = layout.wrap(boundValue(value), layout.contentWidth - look.labelWidth, style, size);
  const lineHeight = size + look.leading;
  layout.ensure(lineHeight);
  layout.text(label, MARGIN.left, layout.cursor, "regular", look.labelSize, MUTED);
  for (const [index, line] of lines.entries()) {
    if (index > 0 && layout.ensure(lineHeight)) layout.text(`${label} (cont.)`, MARGIN.left, layout.cursor, "regular", look.labelSize, MUTED);
    layout.text(line.text, MARGIN.left + look.labelWidth, layout.cursor, style, size, INK, { direction: line.direction, right: layout.right });
    layout.advance(lineHeight);
  }
  layout.advance(look.after);
}

function eventHeader(layout: CertificateLayout): void {
  const { columns, header, inset, size } = STYLE.events;
  const y = layout.cursor;
  layout.band(y - header.bandBelow, header.bandHeight);
  let x = MARGIN.left + inset;
  for (const [title, width] of [
    ["#", columns.index],
    ["Time (UTC, client)", columns.time],
    ["Event", columns.type],
    ["Details", 0],
  ] as const) {
    layout.text(title, x, y, "bold", size, MUTED);
    x += width;
  }
  layout.advance(header.after);
}

function eventRows(layout: CertificateLayout, events: AuditEvent[]): void {
  const { columns, inset, size, lineHeight, separator } = STYLE.events;
  const detailsX = MARGIN.left + inset + columns.index + columns.time + columns.type;
  const detailsWidth = layout.right - detailsX;
  eventHeader(layout);
  for (const [index, event] of events.entries()) {
    const at = new Date(event.timestamp);
    const details = layout.wrap(summarizeData(event.data) || "—", detailsWidth, "regular", size);
    // Keep a row on one page unless it is taller than a page by itself.
    if (layout.ensure(Math.min(details.length, STYLE.events.keptLines) * lineHeight + STYLE.events.rowPadding)) eventHeader(layout);
    const top = layout.cursor;
    let x = MARGIN.left + inset;
    layout.text(String(index + 1), x, top, "regular", size, MUTED);
    x += columns.index;
    layout.text(Number.isNaN(at.getTime()) ? event.timestamp : formatUtc(at), x, top, "regular", size);
    x += columns.time;
    layout.text(event.type, x, top, "bold", size);
    for (const [lineIndex, line] of details.entries()) {
      if (lineIndex > 0 && layout.ensure(lineHeight)) eventHeader(layout);
      layout.text(line.text, detailsX, layout.cursor, "regular", size, INK, { direction: line.direction, right: layout.right });
      layout.advance(lineHeight);
    }
    layout.rule(layout.cursor + lineHeight - separator.above, BAND, separator.thickness);
    layout.advance(STYLE.events.after);
  }
}

/** certificatePageSize is the document's page size when the certificate fits on it (portrait or landscape), else A4 portrait. */
function certificatePageSize(size: PageSize | undefined): PageSize {
  const { min, maxSide, fallback } = STYLE.page;
  if (!size || !(size.width >= min.width && size.height >= min.height) || size.width > maxSide || size.height > maxSide) return fallback;
  return { width: size.width, height: size.height };
}

/**
 * drawAuditCertificate appends the audit trail certificate page(s) to a document: a title
 * block, the document, signer and signature details, the metadata, every audit event in time
 * order and how to verify, flowing onto as many pages as needed, each with "page x of y". The
 * pages take `pageSize` (the document's last page, portrait or landscape) when the layout fits on
 * it, else A4. Text in any script the bundled fonts cover renders (see pdf-text.ts).
 */
export function drawAuditCertificate(pdf: PDF, certificate: AuditCertificate, files: FontFiles, pageSize?: PageSize): void {
  const fonts = new DocumentFonts(pdf, files);
  const size = certificatePageSize(pageSize);
  const forms = new GlyphForms(pdf);
  const layout = new CertificateLayout(fonts, forms, size);
  titleBlock(layout);
  documentSection(layout, certificate);
  signerSections(layout, certificate);
  signatureSection(layout, certificate);
  if (certificate.metadata && Object.keys(certificate.metadata).length > 0) {
    section(layout, "Metadata");
    for (const [key, value] of Object.entries(certificate.metadata)) field(layout, key, formatValue(value));
  }
  auditTrailSection(layout, sortEvents(certificate.events));
  verifySection(layout, certificate);
  writePages(pdf, layout, size, certificate);
}

function titleBlock(layout: CertificateLayout): void {
  const title = STYLE.title;
  layout.text("Audit Trail Certificate", MARGIN.left, layout.cursor, "bold", title.size, INK);
  layout.advance(title.after);
  layout.text("Record of an electronic signature made with Signet", MARGIN.left, layout.cursor, "regular", title.subtitleSize, MUTED);
  layout.advance(title.subtitleAfter);
  layout.rule(layout.cursor, ACCENT, title.ruleThickness);
  layout.advance(title.ruleAfter);
}

function documentSection(layout: CertificateLayout, certificate: AuditCertificate): void {
  section(layout, "Document");
  if (certificate.documentName) field(layout, "Title", certificate.documentName);
  field(layout, "SHA-256 as received", certificate.documentSha256, "mono");
  if (certificate.convertedPdfSha256) field(layout, "SHA-256 of the PDF converted from it (signed)", certificate.convertedPdfSha256, "mono");
  if (certificate.rewrittenPdf)
    field(layout, `SHA-256 after Signet's rewrite (${certificate.rewrittenPdf.reason}; signed)`, certificate.rewrittenPdf.sha256, "mono");
  field(layout, "Pages", `${certificate.documentPages} (this certificate follows them)`);
  if (certificate.eventId) field(layout, "Event ID", certificate.eventId);
}

/** signerSections draws the signer and the signatures the document already carries. */
function signerSections(layout: CertificateLayout, certificate: AuditCertificate): void {
  section(layout, "Signer");
  field(layout, "Name", certificate.signer.name);
  field(layout, "E-mail", certificate.signer.email);
  if (certificate.signer.ip) field(layout, "IP address", certificate.signer.ip);
  if (certificate.signer.userAgent) field(layout, "User agent", certificate.signer.userAgent);
  if (!certificate.existingSignatures || certificate.existingSignatures.length === 0) return;
  section(layout, `Signatures already in the document (${certificate.existingSignatures.length})`);
  for (const [index, earlier] of certificate.existingSignatures.entries()) {
    field(
      layout,
      `Signature ${index + 1}`,
      `${earlier.signer || "unnamed signer"}${earlier.signedAt ? ` · ${formatUtc(earlier.signedAt)} (as that signature states)` : ""}`,
    );
  }
}

function signatureSection(layout: CertificateLayout, certificate: AuditCertificate): void {
  section(layout, "Signature");
  field(layout, "Signed at", `${formatUtc(certificate.signingTime)} (server clock)`);
  field(layout, "Standard", `PAdES baseline ${certificate.timestampAuthority ? "B-T" : "B-B"} (ETSI.CAdES.detached), SHA-256`);
  if (certificate.timestampAuthority) field(layout, "Timestamp authority", certificate.timestampAuthority);
  field(layout, "Certificate subject", certificate.service.subject);
  field(layout, "Key", certificate.service.algorithm);
  field(layout, "Certificate SHA-256", certificate.service.fingerprint, "mono");
}

function auditTrailSection(layout: CertificateLayout, events: AuditEvent[]): void {
  const style = STYLE.events;
  section(layout, `Audit trail (${events.length} event${events.length === 1 ? "" : "s"})`, style.keepWith);
  layout.text("Times as the client reported them, in UTC.", MARGIN.left, layout.cursor, "regular", style.noteSize, MUTED);
  layout.advance(style.noteAfter);
  eventRows(layout, events);
}

function verifySection(layout: CertificateLayout, certificate: AuditCertificate): void {
  const style = STYLE.verify;
  section(layout, "How to verify", style.keepWith);
  const verify = [
    "Send the signed PDF to POST /v1/verify of this service, or open it in a PDF reader that checks signatures.",
    `The signing certificate's SHA-256 must be ${certificate.service.fingerprint}.`,
    "Any change to the file after signing breaks the signature; this page is covered by it.",
  ];
  for (const line of verify) {
    for (const wrapped of layout.wrap(line, layout.contentWidth, "regular", style.size)) {
      layout.ensure(style.lineHeight);
      layout.text(wrapped.text, MARGIN.left, layout.cursor, "regular", style.size, INK);
      layout.advance(style.lineHeight);
    }
  }
}

/** writePages appends the laid-out pages, each with its footer ("page x of y") in one content stream. */
function writePages(pdf: PDF, layout: CertificateLayout, size: PageSize, certificate: AuditCertificate): void {
  const { fonts, forms } = layout;
  const style = STYLE.footer;
  const total = layout.pages.length;
  const footerText = `Signet audit trail certificate · document SHA-256 ${certificate.documentSha256.slice(0, 16)}…`;
  const footer = linePieces(fonts, footerText, "ltr", "regular", style.size);
  for (const [index, drawings] of layout.pages.entries()) {
    const page = appendPage(pdf, size);
    const out: Operator[] = [ops.pushGraphicsState()];
    for (const draw of drawings) draw(page, out);
    const labelText = `Page ${index + 1} of ${total}`;
    const label = linePieces(fonts, labelText, "ltr", "regular", style.size);
    out.push(
      ops.setStrokingRGB(...RULE),
      ops.setLineWidth(STYLE.rule.thickness),
      ops.moveTo(MARGIN.left, style.ruleY),
      ops.lineTo(layout.right, style.ruleY),
      ops.stroke(),
    );
    textOperators(page, forms, out, footer.pieces, MARGIN.left, style.textY, style.size, MUTED, footerText);
    textOperators(page, forms, out, label.pieces, layout.right - label.width, style.textY, style.size, MUTED, labelText);
    out.push(ops.popGraphicsState());
    // One content stream per page: libpdf's drawText would add a stream per call.
    page.drawOperators(out);
  }
}
