// The certificate page's geometry, pure: which page size, where the next line goes and when a block
// starts a new page, and how text breaks into lines of a given width. No fonts, no PDF: widths come
// in as numbers or a measuring function.
import type { PageSize } from "#domain/certificate-page/style.ts";
import { paragraphDirection, visualOrder, type Direction } from "#domain/pdf-text/bidi.ts";
import { wrapText } from "#domain/pdf-text/wrap.ts";

/** Margins are the distances from each page edge, in points. */
export interface Margins {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** PageLimits bound the page the certificate takes: the smallest it fits on, the largest PDF allows, and the fallback. */
export interface PageLimits {
  fallback: PageSize;
  min: PageSize;
  maxSide: number;
}

/** Line is one wrapped line with the direction UAX #9 gives the paragraph it comes from. */
export interface Line {
  text: string;
  direction: Direction;
}

/** certificatePageSize is the document's page size when the certificate fits on it (portrait or landscape), else the fallback. */
export function certificatePageSize(size: PageSize | undefined, limits: PageLimits): PageSize {
  const { min, maxSide, fallback } = limits;
  if (!size || !(size.width >= min.width && size.height >= min.height) || size.width > maxSide || size.height > maxSide) return fallback;
  return { width: size.width, height: size.height };
}

/**
 * wrapParagraphs breaks text (in NFC, as it is drawn) into lines no wider than `width`, paragraph
 * by paragraph; `measure` gives the width of a line in visual order.
 */
export function wrapParagraphs(text: string, width: number, measure: (visual: string) => number): Line[] {
  return text
    .normalize("NFC")
    .split(/\r?\n/)
    .flatMap((paragraph) => {
      const direction = paragraphDirection(paragraph);
      return wrapText(paragraph, width, (line) => measure(visualOrder(line, direction))).map((line) => ({ text: line, direction }));
    });
}

/** PageFlow is the vertical cursor over the pages: the y of the next line, and the page count. */
export class PageFlow {
  #pages = 0;
  #y = 0;

  constructor(
    readonly page: PageSize,
    readonly margin: Margins,
  ) {}

  /** pages is how many pages were started. */
  get pages(): number {
    return this.#pages;
  }

  /** cursor is the y of the next line (PDF space: up from the page's bottom). */
  get cursor(): number {
    return this.#y;
  }

  /** contentWidth is the width between the margins. */
  get contentWidth(): number {
    return this.page.width - this.margin.left - this.margin.right;
  }

  /** right is the x of the right margin. */
  get right(): number {
    return this.page.width - this.margin.right;
  }

  /** newPage starts a page and puts the cursor at its top margin. */
  newPage(): void {
    this.#pages++;
    this.#y = this.page.height - this.margin.top;
  }

  /** fits says whether `height` points fit between the cursor and the bottom margin. */
  fits(height: number): boolean {
    return this.#y - height >= this.margin.bottom;
  }

  /** advance moves the cursor down. */
  advance(by: number): void {
    this.#y -= by;
  }
}
