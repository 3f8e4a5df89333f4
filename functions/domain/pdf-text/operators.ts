// PDF operators for shaped text: glyph outlines as form XObjects, Identity-H glyph ids, one
// marked-content span per line with its /ActualText.
import { ops, PdfDict, PdfString, type PDF, type PDFFormXObject, type PDFPage } from "@libpdf/core";
import type { Piece } from "#domain/pdf-text/runs.ts";
import { extractGlyphAs } from "#domain/pdf/libpdf-internals.ts";
import type { OutlineSegment } from "#domain/pdf-text/shaping.ts";

/** Operator is one PDF content-stream operator as libpdf builds it. */
export type Operator = ReturnType<typeof ops.beginText>;

/** Color is an RGB colour, each component 0..1. */
export type Color = readonly [number, number, number];

/**
 * Resources names fonts and form XObjects for a content stream: a page does it (PDFPage), and so
 * can whatever builds another content stream (a field's or a signature's appearance, a stamp).
 */
export type Resources = Pick<PDFPage, "registerFont" | "registerXObject">;

/**
 * GlyphForms makes each glyph outline a form XObject once per document (filled with the current
 * colour, nonzero winding like TrueType), so a glyph drawn on many lines is stored once.
 */
export class GlyphForms {
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
export function textOperators(
  page: Resources,
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
