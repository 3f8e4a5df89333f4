// What a widget asks of its appearance: the box (rotated by /MK /R), /DA's size and colour, /Q.
import { PdfArray, type PdfDict, PdfNumber, PdfString } from "@libpdf/core";
import type { FormField, FormWidget } from "#domain/pdf/acroform.ts";
import { deref, dictAt, type PdfView } from "#domain/pdf/pdf-file.ts";
import type { Color } from "#domain/pdf-text/operators.ts";
import type { Box, TextStyle } from "#domain/pdf-forms/appearance.ts";

/** WidgetFrame is a widget's appearance box and the /Matrix that turns it by /MK /R. */
export interface WidgetFrame {
  box: Box;
  matrix: number[] | undefined;
}

const ROTATIONS: Record<number, number[]> = { 90: [0, 1, -1, 0, 0, 0], 180: [-1, 0, 0, -1, 0, 0], 270: [0, -1, 1, 0, 0, 0] };

/** widgetFrame is the box an appearance is drawn in: the rectangle's size, swapped for a quarter turn. */
export function widgetFrame(view: PdfView, widget: FormWidget): WidgetFrame | undefined {
  if (!widget.rect) return undefined;
  const width = widget.rect[2] - widget.rect[0];
  const height = widget.rect[3] - widget.rect[1];
  const turn = deref(view, dictAt(view, widget.dict.get("MK"))?.get("R"));
  const rotation = turn instanceof PdfNumber ? (((Math.round(turn.value / 90) * 90) % 360) + 360) % 360 : 0;
  const quarter = rotation === 90 || rotation === 270;
  return { box: quarter ? { width: height, height: width } : { width, height }, matrix: ROTATIONS[rotation] };
}

/** inherited reads a key from the widget, then the field, then the AcroForm. */
function inherited(view: PdfView, key: string, widget: FormWidget, field: FormField, acroForm: PdfDict | undefined) {
  for (const dict of [widget.dict, field.dict, acroForm]) {
    const value = deref(view, dict?.get(key));
    if (value !== undefined) return value;
  }
  return undefined;
}

/** parseDa reads the font size and fill colour of a default appearance string (`/Helv 0 Tf 0 g`). */
export function parseDa(da: string): { size: number; color: Color } {
  const tokens = da.split(/\s+/).filter(Boolean);
  let size = 0;
  let color: Color = [0, 0, 0];
  tokens.forEach((token, index) => {
    const number = (back: number) => Number(tokens[index - back]);
    if (token === "Tf" && Number.isFinite(number(1))) size = Math.max(0, number(1));
    if (token === "g" && Number.isFinite(number(1))) color = [number(1), number(1), number(1)];
    if (token === "rg" && [1, 2, 3].every((back) => Number.isFinite(number(back)))) color = [number(3), number(2), number(1)];
    if (token === "k" && [1, 2, 3, 4].every((back) => Number.isFinite(number(back)))) {
      const [c, m, y, k] = [number(4), number(3), number(2), number(1)];
      color = [(1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)];
    }
  });
  const clamp = (value: number) => Math.min(1, Math.max(0, value));
  return { size, color: color.map(clamp) as unknown as Color };
}

/** textStyle is how a widget of a text or choice field draws its value. */
export function textStyle(view: PdfView, widget: FormWidget, field: FormField, acroForm: PdfDict | undefined): TextStyle {
  const da = inherited(view, "DA", widget, field, acroForm);
  const q = inherited(view, "Q", widget, field, acroForm);
  const align = q instanceof PdfNumber && (q.value === 1 || q.value === 2) ? q.value : 0;
  return {
    ...parseDa(da instanceof PdfString ? da.asString() : ""),
    align,
    multiline: field.flags.multiline || field.type === "list",
    comb: field.flags.comb && field.maxLength ? field.maxLength : 0,
  };
}

/** numbers reads an array of numbers (a /Matrix or /BBox), or undefined. */
export function numbers(view: PdfView, value: unknown): number[] | undefined {
  const array = deref(view, value as never);
  if (!(array instanceof PdfArray)) return undefined;
  const out = array.toArray().map((item) => {
    const number = deref(view, item);
    return number instanceof PdfNumber ? number.value : Number.NaN;
  });
  return out.every(Number.isFinite) ? out : undefined;
}
