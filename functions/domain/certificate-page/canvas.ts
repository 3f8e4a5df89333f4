// The certificate's drawing surface: draws text, rules and bands at the page flow's positions,
// collecting each page's operators, and writes the pages (with "page x of y") once all are known.
import { ops, type PDF, type PDFPage } from "@libpdf/core";
import { PageFlow, wrapParagraphs, type Line } from "#domain/certificate-page/layout.ts";
import { GlyphForms, textOperators, type Operator } from "#domain/pdf-text/operators.ts";
import { extractionText, linePieces } from "#domain/pdf-text/runs.ts";
import { STYLE, type Color, type PageSize } from "#domain/certificate-page/style.ts";
import { appendPage } from "#domain/pdf/page-tree.ts";
import { paragraphDirection, type Direction } from "#domain/pdf-text/bidi.ts";
import type { DocumentFonts, FontStyle } from "#domain/pdf-text/fonts.ts";

/** DrawOp appends the operators of one drawing to a page's single content stream. */
type DrawOp = (page: PDFPage, out: Operator[]) => void;

const { margin: MARGIN } = STYLE.page;

/** CertificateCanvas collects drawing operations page by page, so "page x of y" is known at the end. */
export class CertificateCanvas {
  readonly #pages: DrawOp[][] = [];
  readonly #forms: GlyphForms;
  readonly flow: PageFlow;

  constructor(
    pdf: PDF,
    readonly fonts: DocumentFonts,
    readonly page: PageSize,
  ) {
    this.#forms = new GlyphForms(pdf);
    this.flow = new PageFlow(page, MARGIN);
    this.newPage(false);
  }

  /** newPage starts a page; a continuation page opens with its heading. */
  newPage(continued = true): void {
    this.#pages.push([]);
    this.flow.newPage();
    if (continued) {
      this.text("Audit trail certificate (continued)", MARGIN.left, this.flow.cursor, "bold", STYLE.continued.size, STYLE.color.accent);
      this.flow.advance(STYLE.continued.after);
    }
  }

  /** ensure starts a new page when `height` does not fit; returns true if it did. */
  ensure(height: number): boolean {
    if (this.flow.fits(height)) return false;
    this.newPage();
    return true;
  }

  /** text draws one line at (x, y); with `right`, a right-to-left line ends there instead. */
  text(
    text: string,
    x: number,
    y: number,
    style: FontStyle,
    size: number,
    color: Color = STYLE.color.ink,
    line: { direction?: Direction; right?: number } = {},
  ): void {
    const direction = line.direction ?? paragraphDirection(text);
    const { pieces, width } = linePieces(this.fonts, text.normalize("NFC"), direction, style, size);
    const left = direction === "rtl" && line.right !== undefined ? line.right - width : x;
    const actual = extractionText(this.fonts.typed(text));
    this.#op((page, out) => textOperators(page, this.#forms, out, pieces, left, y, size, color, actual));
  }

  /** rule draws a horizontal line across the content width. */
  rule(y: number, color: Color = STYLE.color.rule, thickness: number = STYLE.rule.thickness): void {
    this.#op((_page, out) =>
      out.push(ops.setStrokingRGB(...color), ops.setLineWidth(thickness), ops.moveTo(MARGIN.left, y), ops.lineTo(this.flow.right, y), ops.stroke()),
    );
  }

  /** band fills a strip across the content width. */
  band(y: number, height: number): void {
    this.#op((_page, out) => out.push(ops.setNonStrokingRGB(...STYLE.color.band), ops.rectangle(MARGIN.left, y, this.flow.contentWidth, height), ops.fill()));
  }

  /** wrap breaks text into lines of this font, style and size no wider than `width`. */
  wrap(text: string, width: number, style: FontStyle, size: number): Line[] {
    return wrapParagraphs(text, width, (visual) => this.fonts.width(visual, style, size));
  }

  /** writePages appends the pages, each with its footer (`footer` and `label(index, total)`) in one content stream. */
  writePages(pdf: PDF, footer: string, label: (index: number, total: number) => string): void {
    const style = STYLE.footer;
    const right = this.flow.right;
    const footerLine = linePieces(this.fonts, footer, "ltr", "regular", style.size);
    for (const [index, drawings] of this.#pages.entries()) {
      const page = appendPage(pdf, this.page);
      const out: Operator[] = [ops.pushGraphicsState()];
      for (const draw of drawings) draw(page, out);
      const labelText = label(index, this.#pages.length);
      const labelLine = linePieces(this.fonts, labelText, "ltr", "regular", style.size);
      out.push(
        ops.setStrokingRGB(...STYLE.color.rule),
        ops.setLineWidth(STYLE.rule.thickness),
        ops.moveTo(MARGIN.left, style.ruleY),
        ops.lineTo(right, style.ruleY),
        ops.stroke(),
      );
      textOperators(page, this.#forms, out, footerLine.pieces, MARGIN.left, style.textY, style.size, STYLE.color.muted, footer);
      textOperators(page, this.#forms, out, labelLine.pieces, right - labelLine.width, style.textY, style.size, STYLE.color.muted, labelText);
      out.push(ops.popGraphicsState());
      // One content stream per page: libpdf's drawText would add a stream per call.
      page.drawOperators(out);
    }
  }

  #op(draw: DrawOp): void {
    this.#pages.at(-1)!.push(draw);
  }
}
