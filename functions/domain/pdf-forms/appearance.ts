// Appearance streams for filled fields (ISO 32000-1 12.7.3.3): one form XObject per widget, drawn
// with the shaped text pieces of pdf-text/ in subset-embedded bundled fonts, so every viewer shows
// the value without /NeedAppearances and Arabic, Hebrew and CJK render.
import {
  type EmbeddedFont,
  ops,
  type PDF,
  type PDFEmbeddedPage,
  type PDFFormXObject,
  PdfArray,
  PdfDict,
  PdfNumber,
  type PdfRef,
  PdfStream,
} from "@libpdf/core";
import { paragraphDirection, visualOrder } from "#domain/pdf-text/bidi.ts";
import type { DocumentFonts } from "#domain/pdf-text/fonts.ts";
import { type Color, type GlyphForms, type Operator, textOperators } from "#domain/pdf-text/operators.ts";
import { extractionText, linePieces } from "#domain/pdf-text/runs.ts";
import { wrapText } from "#domain/pdf-text/wrap.ts";

/** TextStyle is how a field asks its text to be drawn: /DA's size and colour, /Q, comb and multiline. */
export interface TextStyle {
  /** Font size in points; 0 is auto (fit the box). */
  size: number;
  color: Color;
  /** /Q: 0 left, 1 centred, 2 right. */
  align: 0 | 1 | 2;
  multiline: boolean;
  /** Comb cells (the field's /MaxLen) when the comb flag is set, else 0. */
  comb: number;
}

/**
 * AppearanceResources names the fonts and form XObjects one appearance stream uses: the
 * Resources that pdf-text's textOperators draws into, written as the stream's /Resources.
 */
class AppearanceResources {
  readonly fonts = new Map<string, PdfRef>();
  readonly xobjects = new Map<string, PdfRef>();

  constructor(private readonly pdf: PDF) {}

  registerFont(font: EmbeddedFont | string): string {
    if (typeof font === "string") throw new Error("appearance streams use embedded fonts only");
    const ref = this.pdf.getFontRef(font);
    if (!ref) throw new Error("font not embedded in this document");
    return this.#name(this.fonts, "F", ref);
  }

  registerXObject(xobject: PDFFormXObject | PDFEmbeddedPage): string {
    return this.#name(this.xobjects, "X", xobject.ref);
  }

  #name(names: Map<string, PdfRef>, prefix: string, ref: PdfRef): string {
    for (const [name, known] of names) if (known === ref) return name;
    const name = `${prefix}${names.size}`;
    names.set(name, ref);
    return name;
  }

  dict(): PdfDict {
    const map = (names: Map<string, PdfRef>) => {
      const dict = new PdfDict();
      for (const [name, ref] of names) dict.set(name, ref);
      return dict;
    };
    return PdfDict.of({ Font: map(this.fonts), XObject: map(this.xobjects) });
  }
}

/** Box is the widget's appearance box in form space (rotation already applied): width and height. */
export interface Box {
  width: number;
  height: number;
}

const PADDING = 2;
const LINE_HEIGHT = 1.15;

/** autoSize picks a size for /DA size 0: the box's height for one line, shrunk until the widest line fits. */
function autoSize(box: Box, style: TextStyle, widest: (size: number) => number): number {
  let size = Math.max(4, Math.min(12, (box.height - 2 * PADDING) / LINE_HEIGHT));
  if (style.comb > 0) return Math.min(size, (box.width / style.comb) * 1.1);
  const width = widest(size);
  if (width > box.width - 2 * PADDING && width > 0) size = Math.max(4, (size * (box.width - 2 * PADDING)) / width);
  return size;
}

/** alignment places a line of `width` by /Q: left, centred or right, inside the padding. */
function alignment(box: Box, style: TextStyle): (width: number) => number {
  return (width) => (style.align === 1 ? (box.width - width) / 2 : style.align === 2 ? box.width - PADDING - width : PADDING);
}

/** TextDrawer draws a field's text with one document's fonts and glyph forms. */
export class TextDrawer {
  constructor(
    private readonly pdf: PDF,
    private readonly fonts: DocumentFonts,
    private readonly forms: GlyphForms,
  ) {}

  /** line draws one line of text starting at (x, y) and returns its operators and width, measured before drawing. */
  private measure(text: string, size: number): number {
    const direction = paragraphDirection(text);
    return this.fonts.width(visualOrder(text, direction), "regular", size);
  }

  private draw(resources: AppearanceResources, out: Operator[], text: string, at: (width: number) => number, y: number, size: number, color: Color): void {
    const direction = paragraphDirection(text);
    const { pieces, width } = linePieces(this.fonts, text, direction, "regular", size);
    textOperators(resources, this.forms, out, pieces, at(width), y, size, color, extractionText(this.fonts.typed(text)));
  }

  /** operators lays a value out in the box: comb cells, wrapped lines, or one line, aligned by /Q. */
  private layout(resources: AppearanceResources, out: Operator[], value: string, box: Box, style: TextStyle): void {
    const text = value.normalize("NFC");
    if (style.comb > 0) {
      const cell = box.width / style.comb;
      const size = style.size || autoSize(box, style, () => 0);
      const y = (box.height - size) / 2 + size * 0.22;
      for (const [index, char] of Array.from(text).entries())
        this.draw(resources, out, char, (width) => index * cell + (cell - width) / 2, y, size, style.color);
      return;
    }
    if (style.multiline) {
      const { lines, size } = this.wrapToFit(text, box, style.size || 12);
      const x = alignment(box, style);
      for (const [index, line] of lines.entries())
        this.draw(resources, out, line, x, box.height - PADDING - size * (0.9 + index * LINE_HEIGHT), size, style.color);
      return;
    }
    const line = text.replace(/[\r\n]+/g, " ");
    const size = style.size || autoSize(box, style, (candidate) => this.measure(line, candidate));
    this.draw(resources, out, line, alignment(box, style), (box.height - size) / 2 + size * 0.22, size, style.color);
  }

  /** wrapToFit wraps a multiline value at `size`, smaller (down to 4 pt) while its lines are taller than the box: every line stays visible. */
  private wrapToFit(text: string, box: Box, size: number): { lines: string[]; size: number } {
    const inner = box.width - 2 * PADDING;
    for (let candidate = size; ; candidate = Math.max(4, candidate * 0.9)) {
      const lines = text.split(/\r?\n/).flatMap((paragraph) => wrapText(paragraph, inner, (line) => this.measure(line, candidate)));
      if (lines.length * candidate * LINE_HEIGHT <= box.height - 2 * PADDING || candidate <= 4) return { lines, size: candidate };
    }
  }

  /** listLines draws a list box's visible options, one per line from the top, the selected ones on the highlight. */
  private listLines(resources: AppearanceResources, out: Operator[], view: ListBoxView, box: Box, style: TextStyle): void {
    const size = style.size || LIST_FONT_SIZE;
    const height = size * LINE_HEIGHT;
    const lines = Math.max(1, Math.floor((box.height - 2 * PADDING) / height));
    const x = alignment(box, style);
    const selected = new Set(view.selected);
    // Options below the last whole line are drawn while any part shows: the clip cuts them.
    for (let index = firstShown(view, lines), row = 0; index < view.labels.length; index++, row++) {
      const bottom = box.height - PADDING - (row + 1) * height;
      if (bottom + height <= 0) break;
      if (selected.has(index)) out.push(ops.setNonStrokingRGB(...SELECTED_HIGHLIGHT), ops.rectangle(1, bottom, Math.max(0, box.width - 2), height), ops.fill());
      const label = view.labels[index]!.normalize("NFC").replace(/[\r\n]+/g, " ");
      this.draw(resources, out, label, x, bottom + (height - size) / 2 + size * 0.22, size, style.color);
    }
  }

  /** listAppearance is a list box widget's normal appearance: its options as viewers draw them, clipped to the box. */
  listAppearance(view: ListBoxView, box: Box, style: TextStyle, matrix: number[] | undefined): PdfRef {
    return this.appearance(box, matrix, (resources, out) => this.listLines(resources, out, view, box, style));
  }

  /** appearance wraps what `draw` writes in /Tx BMC and a clip to the box inside its border. */
  private appearance(box: Box, matrix: number[] | undefined, draw: (resources: AppearanceResources, out: Operator[]) => void): PdfRef {
    const resources = new AppearanceResources(this.pdf);
    const out: Operator[] = [
      ops.beginMarkedContent("/Tx"),
      ops.pushGraphicsState(),
      ops.rectangle(1, 1, Math.max(0, box.width - 2), Math.max(0, box.height - 2)),
      ops.clip(),
      ops.endPath(),
    ];
    draw(resources, out);
    out.push(ops.popGraphicsState(), ops.endMarkedContent());
    return formStream(this.pdf, box, out, resources.dict(), matrix);
  }

  /** textAppearance is a text or choice widget's normal appearance showing `value`. */
  textAppearance(value: string, box: Box, style: TextStyle, matrix: number[] | undefined): PdfRef {
    return this.appearance(box, matrix, (resources, out) => {
      if (value !== "") this.layout(resources, out, value, box, style);
    });
  }
}

/** ListBoxView is what a list box shows: every option's label, which are selected, and /TI (the option at the top). */
export interface ListBoxView {
  labels: string[];
  selected: number[];
  topIndex: number;
}

// Acrobat's (and pdf.js', PDFBox's) highlight behind a list box's selected options.
const SELECTED_HIGHLIGHT: Color = [0.6, 0.75, 0.85];
const LIST_FONT_SIZE = 12;

/**
 * firstShown is the option at the top of a list box: /TI, unless the first selected option would
 * then be out of view (a value chosen below the fold), when the view scrolls to it as viewers do.
 */
export function firstShown(view: ListBoxView, lines: number): number {
  const count = view.labels.length;
  const top = Math.min(Math.max(0, Math.trunc(view.topIndex)), Math.max(0, count - 1));
  const first = view.selected.reduce((lowest, index) => Math.min(lowest, index), Number.POSITIVE_INFINITY);
  if (!Number.isFinite(first) || (first >= top && first < top + lines)) return top;
  return Math.max(0, Math.min(first, count - lines));
}

/** checkAppearance is a check mark drawn as a path (a button without its own on-state appearance). */
export function checkAppearance(pdf: PDF, box: Box, color: Color, matrix: number[] | undefined): PdfRef {
  const s = Math.min(box.width, box.height);
  const [x0, y0] = [(box.width - s) / 2, (box.height - s) / 2];
  const out: Operator[] = [
    ops.pushGraphicsState(),
    ops.setStrokingRGB(...color),
    ops.setLineWidth(Math.max(1, s / 10)),
    ops.moveTo(x0 + s * 0.2, y0 + s * 0.5),
    ops.lineTo(x0 + s * 0.42, y0 + s * 0.25),
    ops.lineTo(x0 + s * 0.8, y0 + s * 0.78),
    ops.stroke(),
    ops.popGraphicsState(),
  ];
  return formStream(pdf, box, out, new PdfDict(), matrix);
}

/** emptyAppearance draws nothing (a button's off state when it has none). */
export function emptyAppearance(pdf: PDF, box: Box, matrix: number[] | undefined): PdfRef {
  return formStream(pdf, box, [], new PdfDict(), matrix);
}

function formStream(pdf: PDF, box: Box, out: Operator[], resources: PdfDict, matrix: number[] | undefined): PdfRef {
  const form = pdf.createFormXObject({ bbox: { x: 0, y: 0, width: box.width, height: box.height }, operators: out });
  const stream = pdf.getObject(form.ref);
  if (!(stream instanceof PdfStream)) throw new Error("libpdf did not register the appearance stream");
  stream.set("Resources", resources);
  if (matrix) stream.set("Matrix", new PdfArray(matrix.map((n) => PdfNumber.of(n))));
  return form.ref;
}
