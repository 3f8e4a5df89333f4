// The visible signature: what a signature widget shows (signer name, date, reason, location, an
// optional picture), laid out in the widget's box and drawn as its normal appearance (/AP /N), text
// shaped in any script the bundled fonts cover (pdf-text/).
import { ops, type EmbeddedFont, type PDF, type PDFFormXObject, PdfArray, PdfDict, PdfNumber, type PdfRef, type PdfStream } from "@libpdf/core";
import type { AppearanceBox } from "#domain/signing/signature-field.ts";
import { paragraphDirection, type Direction } from "#domain/pdf-text/bidi.ts";
import { DocumentFonts, type FontFiles, type FontStyle } from "#domain/pdf-text/fonts.ts";
import { GlyphForms, textOperators, type Operator, type Resources } from "#domain/pdf-text/operators.ts";
import { extractionText, linePieces } from "#domain/pdf-text/runs.ts";

/** AppearanceContent is what a visible signature shows. */
export interface AppearanceContent {
  name: string;
  /** The signing time as shown ("2026-11-22 09:58:00 UTC"). */
  date: string;
  reason?: string | undefined;
  location?: string | undefined;
  /** A picture (PNG or JPEG bytes) and its pixel size, drawn left of the text. */
  image?: { bytes: Uint8Array; width: number; height: number } | undefined;
}

/** AppearanceLine is one laid-out line: text, style, size and baseline, left end or (right-to-left) right end. */
export interface AppearanceLine {
  text: string;
  style: FontStyle;
  size: number;
  x: number;
  y: number;
  direction: Direction;
}

/** AppearanceLayout places the picture and the lines in a box of width x height points. */
export interface AppearanceLayout {
  image?: { x: number; y: number; width: number; height: number };
  lines: AppearanceLine[];
}

// The name is the largest line; the others are this fraction of it; line pitch is 1.25 x size.
const LOOK = { padding: 0.08, maxPadding: 4, maxName: 18, minSize: 3, detail: 0.55, pitch: 1.25, imageShare: 0.4 };

/** appearanceLines are the lines of a signature's appearance, in order, before layout. */
export function appearanceLines(content: AppearanceContent): Array<{ text: string; style: FontStyle }> {
  return [
    { text: content.name, style: "bold" },
    { text: `Digitally signed ${content.date}`, style: "regular" },
    ...(content.reason ? [{ text: `Reason: ${content.reason}`, style: "regular" as const }] : []),
    ...(content.location ? [{ text: `Location: ${content.location}`, style: "regular" as const }] : []),
  ];
}

/**
 * layoutAppearance lays a signature out in its box: the picture (when given) on the left, at most
 * 40% of the width and the box's height less padding, its aspect ratio kept; the lines to its right
 * (or across the box), the name largest, as large as fits the height and the widest line, the
 * block centred vertically; a right-to-left line ends at the right edge. `measure` is a line's
 * width at size 1.
 */
export function layoutAppearance(
  box: { width: number; height: number },
  content: AppearanceContent,
  measure: (text: string, style: FontStyle) => number,
): AppearanceLayout {
  const pad = Math.min(LOOK.maxPadding, Math.min(box.width, box.height) * LOOK.padding);
  let left = pad;
  let image: AppearanceLayout["image"];
  if (content.image && content.image.width > 0 && content.image.height > 0) {
    const scale = Math.min((box.width * LOOK.imageShare - pad) / content.image.width, (box.height - 2 * pad) / content.image.height);
    const width = content.image.width * scale;
    const height = content.image.height * scale;
    image = { x: pad, y: (box.height - height) / 2, width, height };
    left = pad + width + pad;
  }
  const lines = appearanceLines(content);
  const areaWidth = Math.max(0, box.width - left - pad);
  const areaHeight = Math.max(0, box.height - 2 * pad);
  const factors = lines.map((_line, index) => (index === 0 ? 1 : LOOK.detail));
  // Heights: the block is pitch x the sum of line sizes; widths: each line at its own size.
  const byHeight = areaHeight / (LOOK.pitch * factors.reduce((sum, factor) => sum + factor, 0));
  const byWidth = Math.min(...lines.map((line, index) => areaWidth / Math.max(1e-6, measure(line.text, line.style) * factors[index]!)));
  const name = Math.max(LOOK.minSize, Math.min(LOOK.maxName, byHeight, byWidth));
  const blockHeight = LOOK.pitch * name * factors.reduce((sum, factor) => sum + factor, 0);
  let top = pad + areaHeight - Math.max(0, (areaHeight - blockHeight) / 2);
  const placed = lines.map((line, index) => {
    const size = name * factors[index]!;
    top -= size * LOOK.pitch;
    const direction = paragraphDirection(line.text);
    const x = direction === "rtl" ? box.width - pad : left;
    // The baseline sits a quarter of the pitch above the line's bottom (room for descenders).
    return { text: line.text, style: line.style, size, x, y: top + size * (LOOK.pitch - 1) + size * 0.2, direction };
  });
  return { ...(image ? { image } : {}), lines: placed };
}

/** StreamResources collects the fonts and form XObjects an appearance stream names, in its own /Resources. */
class StreamResources implements Resources {
  readonly dict = new PdfDict();
  private readonly names = new Map<string, string>();

  registerFont(font: EmbeddedFont | string): string {
    if (typeof font === "string") throw new Error("appearance streams draw with embedded fonts only");
    return this.add("Font", "F", font.ref);
  }

  registerXObject(xobject: PDFFormXObject | { ref: PdfRef }): string {
    return this.add("XObject", "X", xobject.ref);
  }

  add(kind: "Font" | "XObject", prefix: string, ref: PdfRef): string {
    const key = `${kind} ${ref.objectNumber} ${ref.generation}`;
    let name = this.names.get(key);
    if (!name) {
      name = `${prefix}${this.names.size}`;
      this.names.set(key, name);
      let sub = this.dict.get(kind);
      if (!(sub instanceof PdfDict)) {
        sub = new PdfDict();
        this.dict.set(kind, sub);
      }
      (sub as PdfDict).set(name, ref);
    }
    return name;
  }
}

const INK = [0.07, 0.1, 0.2] as const;
const MUTED = [0.25, 0.28, 0.35] as const;

/**
 * uprightMatrix is the appearance's /Matrix on a page shown turned by `rotate` degrees clockwise:
 * it maps the box as the reader sees it (width and height swapped at 90 and 270) onto the widget's
 * rectangle in default user space, so the signature reads upright (ISO 32000-1 12.5.5).
 */
export function uprightMatrix(box: AppearanceBox): [number, number, number, number, number, number] {
  const { width, height } = box;
  if (box.rotate === 90) return [0, 1, -1, 0, width, 0];
  if (box.rotate === 180) return [-1, 0, 0, -1, width, height];
  if (box.rotate === 270) return [0, -1, 1, 0, 0, height];
  return [1, 0, 0, 1, 0, 0];
}

/**
 * drawSignatureAppearance draws a signature's appearance into a form XObject for the widget (text
 * clipped to the box; turned upright on a rotated page) and returns its reference, for /AP /N.
 */
export function drawSignatureAppearance(pdf: PDF, files: FontFiles, widget: AppearanceBox, content: AppearanceContent): PdfRef {
  const turned = widget.rotate === 90 || widget.rotate === 270;
  const box = turned ? { width: widget.height, height: widget.width } : { width: widget.width, height: widget.height };
  const fonts = new DocumentFonts(pdf, files);
  const forms = new GlyphForms(pdf);
  const resources = new StreamResources();
  const layout = layoutAppearance(box, content, (text, style) => fonts.width(fonts.typed(text.normalize("NFC")), style, 1));
  const out: Operator[] = [ops.pushGraphicsState(), ops.rectangle(0, 0, box.width, box.height), ops.clip(), ops.endPath()];
  if (layout.image && content.image) {
    const image = pdf.embedImage(content.image.bytes);
    const name = resources.add("XObject", "Im", image.ref);
    const { x, y, width, height } = layout.image;
    out.push(ops.pushGraphicsState(), ops.concatMatrix(width, 0, 0, height, x, y), ops.paintXObject(`/${name}`), ops.popGraphicsState());
  }
  layout.lines.forEach((line, index) => {
    const text = line.text.normalize("NFC");
    const { pieces, width } = linePieces(fonts, text, line.direction, line.style, line.size);
    const x = line.direction === "rtl" ? line.x - width : line.x;
    textOperators(resources, forms, out, pieces, x, line.y, line.size, index === 0 ? INK : MUTED, extractionText(fonts.typed(line.text)));
  });
  out.push(ops.popGraphicsState());
  const form = pdf.createFormXObject({ bbox: { x: 0, y: 0, width: box.width, height: box.height }, operators: out });
  const stream = pdf.getObject(form.ref) as PdfStream;
  stream.set("Resources", resources.dict);
  if (widget.rotate !== 0) stream.set("Matrix", new PdfArray(uprightMatrix(widget).map((value) => PdfNumber.of(value))));
  return form.ref;
}
