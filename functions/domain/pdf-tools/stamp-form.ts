// A stamp's drawing as one form XObject with its own resources: shaped text lines (every script
// the certificate page handles) and a picture, under an /ExtGState for the opacity. Painted once
// per page (page content) or shown as a /Stamp annotation's appearance: the same object either way.
import { ops, type PDF, PdfArray, PdfDict, PdfName, PdfNumber, type PdfRef, PdfStream, type PDFPage } from "@libpdf/core";
import { paragraphDirection } from "#domain/pdf-text/bidi.ts";
import type { DocumentFonts, FontStyle } from "#domain/pdf-text/fonts.ts";
import { type Color, GlyphForms, type Operator, type Resources, textOperators } from "#domain/pdf-text/operators.ts";
import { extractionText, linePieces } from "#domain/pdf-text/runs.ts";

/** StampText is the text of a stamp: one or more lines (newline), each centred. */
export interface StampText {
  value: string;
  font: FontStyle;
  /** Font size in points. */
  size: number;
  color: Color;
}

/** StampPicture is a decoded picture (PNG or JPEG bytes) and the size to draw it at, in points. */
export interface StampPicture {
  bytes: Uint8Array;
  width: number;
  height: number;
}

/** StampLook is what a stamp shows and how transparent it is (0 invisible .. 1 opaque). */
export interface StampLook {
  text?: StampText | undefined;
  picture?: StampPicture | undefined;
  opacity: number;
}

/** StampForm is the drawn stamp: the form XObject and its size in points (its /BBox is 0 0 width height). */
export interface StampForm {
  ref: PdfRef;
  stream: PdfStream;
  width: number;
  height: number;
  /** The text as readers should extract it (for the annotation's /Contents). */
  text: string;
}

type FontInput = Parameters<PDFPage["registerFont"]>[0];

/** FormResources names what a form XObject's content uses, in the /Resources dictionary it carries. */
class FormResources implements Resources {
  readonly dict = new PdfDict();
  readonly #names = new Map<string, string>();

  constructor(private readonly pdf: PDF) {}

  registerFont(font: FontInput): string {
    if (typeof font === "string") throw new Error("a stamp draws with embedded fonts only");
    const ref = this.pdf.getFontRef(font);
    if (!ref) throw new Error("the font was not embedded in this document");
    return this.#register("Font", "F", ref);
  }

  registerXObject(xobject: { ref: PdfRef }): string {
    return this.#register("XObject", "X", xobject.ref);
  }

  registerExtGState(ref: PdfRef): string {
    return this.#register("ExtGState", "GS", ref);
  }

  #register(kind: string, prefix: string, ref: PdfRef): string {
    const key = `${kind} ${ref.objectNumber} ${ref.generation}`;
    let name = this.#names.get(key);
    if (!name) {
      let group = this.dict.get(kind);
      if (!(group instanceof PdfDict)) {
        group = new PdfDict();
        this.dict.set(kind, group);
      }
      name = `${prefix}${this.#names.size}`;
      (group as PdfDict).set(name, ref);
      this.#names.set(key, name);
    }
    return name;
  }
}

// Line height as a multiple of the font size, the descent below a line's baseline, and the gap between picture and text.
const LINE_HEIGHT = 1.25;
const DESCENT = 0.3;
const GAP = 0.4;

/** StampLine is one laid-out line of the stamp's text. */
type StampLine = ReturnType<typeof linePieces> & { text: string };

function layoutLines(fonts: DocumentFonts, text: StampText): StampLine[] {
  return text.value.split(/\r?\n/).map((line) => {
    const normalized = line.normalize("NFC");
    const direction = paragraphDirection(normalized);
    return { ...linePieces(fonts, normalized, direction, text.font, text.size), text: line };
  });
}

/**
 * drawStampForm draws the stamp into a new form XObject of `pdf`: the picture on top, the text
 * lines centred under it, everything under one graphics state with the opacity (/ca and /CA).
 */
export function drawStampForm(pdf: PDF, fonts: DocumentFonts, look: StampLook): StampForm {
  const resources = new FormResources(pdf);
  const lines = look.text ? layoutLines(fonts, look.text) : [];
  const size = look.text?.size ?? 0;
  const textHeight = lines.length * size * LINE_HEIGHT;
  const picture = look.picture;
  const gap = picture && lines.length > 0 ? size * GAP : 0;
  const width = Math.max(picture?.width ?? 0, ...lines.map((line) => line.width), 1);
  const height = Math.max((picture?.height ?? 0) + gap + textHeight, 1);
  const state = pdf.register(PdfDict.of({ Type: PdfName.of("ExtGState"), ca: PdfNumber.of(look.opacity), CA: PdfNumber.of(look.opacity) }));
  const out: Operator[] = [ops.pushGraphicsState(), ops.setGraphicsState(`/${resources.registerExtGState(state)}`)];
  if (picture) {
    const image = pdf.embedImage(picture.bytes);
    const name = resources.registerXObject(image);
    const x = (width - picture.width) / 2;
    out.push(ops.pushGraphicsState(), ops.concatMatrix(picture.width, 0, 0, picture.height, x, height - picture.height), ops.paintXObject(`/${name}`));
    out.push(ops.popGraphicsState());
  }
  const forms = new GlyphForms(pdf);
  lines.forEach((line, index) => {
    const baseline = textHeight - (index + 1) * size * LINE_HEIGHT + size * DESCENT;
    const actual = extractionText(fonts.typed(line.text));
    textOperators(resources, forms, out, line.pieces, (width - line.width) / 2, baseline, size, look.text!.color, actual);
  });
  out.push(ops.popGraphicsState());
  const form = pdf.createFormXObject({ bbox: { x: 0, y: 0, width, height }, operators: out });
  const stream = pdf.getObject(form.ref);
  if (!(stream instanceof PdfStream)) throw new Error("the stamp's form XObject was not registered");
  stream.set("Resources", resources.dict);
  return { ref: form.ref, stream, width, height, text: lines.map((line) => line.text).join("\n") };
}

/** setMatrix gives a form XObject a /Matrix (an annotation's appearance turned by the stamp's rotation). */
export function setMatrix(stream: PdfStream, matrix: readonly number[]): void {
  stream.set("Matrix", new PdfArray(matrix.map((value) => PdfNumber.of(round(value)))));
}

/** round keeps four decimals: enough for positions in points, short in the file. */
export function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
