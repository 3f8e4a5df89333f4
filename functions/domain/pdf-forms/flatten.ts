// Flattening: a field's appearance becomes page content and the field leaves the form (its widgets
// leave the page's /Annots, the field leaves /Fields or its parent's /Kids).
import { ops, type PDF, type PDFFormXObject, PdfArray, PdfName, PdfNumber, PdfRef, PdfStream } from "@libpdf/core";
import type { FormField, FormWidget, PdfForm } from "#domain/pdf/acroform.ts";
import { deref, dictAt, type PdfView } from "#domain/pdf/pdf-file.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { numbers } from "#domain/pdf-forms/widget-style.ts";

const HIDDEN = 1 << 1;
const sameRef = (a: unknown, b: PdfRef) => a instanceof PdfRef && a.objectNumber === b.objectNumber && a.generation === b.generation;

/** shownAppearance is the appearance stream a viewer shows for a widget: /AP /N, or its /AS state of it. */
function shownAppearance(view: PdfView, widget: FormWidget): PdfRef | undefined {
  const normal = dictAt(view, widget.dict.get("AP"))?.get("N");
  const resolved = deref(view, normal);
  if (resolved instanceof PdfStream) return normal instanceof PdfRef ? normal : undefined;
  if (!resolved) return undefined;
  const state = widget.dict.getName("AS")?.value;
  const chosen = state ? dictAt(view, normal)?.get(state) : undefined;
  return chosen instanceof PdfRef ? chosen : undefined;
}

/** placement is the matrix that maps an appearance's transformed /BBox onto the widget's rectangle (ISO 32000-1 12.5.5). */
function placement(view: PdfView, stream: PdfStream, rect: [number, number, number, number]): number[] | undefined {
  const bbox = numbers(view, stream.get("BBox"));
  if (bbox?.length !== 4) return undefined;
  const [a, b, c, d, e, f] = numbers(view, stream.get("Matrix")) ?? [1, 0, 0, 1, 0, 0];
  const corners = [
    [bbox[0]!, bbox[1]!],
    [bbox[2]!, bbox[1]!],
    [bbox[0]!, bbox[3]!],
    [bbox[2]!, bbox[3]!],
  ].map(([x, y]) => [a! * x! + c! * y! + e!, b! * x! + d! * y! + f!]);
  const xs = corners.map((corner) => corner[0]!);
  const ys = corners.map((corner) => corner[1]!);
  const [x0, y0, x1, y1] = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  if (x1 - x0 <= 0 || y1 - y0 <= 0) return undefined;
  const sx = (rect[2] - rect[0]) / (x1 - x0);
  const sy = (rect[3] - rect[1]) / (y1 - y0);
  return [sx, 0, 0, sy, rect[0] - x0 * sx, rect[1] - y0 * sy];
}

function removeRef(view: PdfView, holder: ReturnType<typeof dictAt>, key: string, ref: PdfRef): void {
  const array = deref(view, holder?.get(key));
  if (!(array instanceof PdfArray)) return;
  for (let index = array.length - 1; index >= 0; index--) if (sameRef(array.at(index), ref)) array.remove(index);
}

/** burnWidget draws a widget's shown appearance into its page and takes it off the page. */
function burnWidget(pdf: PDF, view: PdfView, form: PdfForm, widget: FormWidget): void {
  if (widget.page === null || !widget.ref) return;
  const page = pdf.getPage(widget.page);
  if (!page) return;
  const flags = deref(view, widget.dict.get("F"));
  const appearance = shownAppearance(view, widget);
  const stream = appearance ? deref(view, appearance) : undefined;
  if (appearance && stream instanceof PdfStream && widget.rect && !(flags instanceof PdfNumber && flags.value & HIDDEN)) {
    const matrix = placement(view, stream, widget.rect);
    if (matrix) {
      // Annotation appearances may leave out what painting them as a page's XObject needs: the
      // form subtype, and their own resources (some writers rely on the form's /DR).
      if (!stream.has("Subtype")) stream.set("Subtype", PdfName.of("Form"));
      const formResources = dictAt(view, form.dict?.get("DR"));
      if (!stream.has("Resources") && formResources) stream.set("Resources", formResources);
      const name = page.registerXObject({ ref: appearance } as PDFFormXObject);
      page.drawOperators([
        ops.pushGraphicsState(),
        ops.concatMatrix(...(matrix as [number, number, number, number, number, number])),
        ops.paintXObject(`/${name}`),
        ops.popGraphicsState(),
      ]);
    }
  }
  removeRef(view, page.dict, "Annots", widget.ref);
}

/** unlink takes a field out of the form's tree: its parent's /Kids, or /AcroForm /Fields. */
function unlink(view: PdfView, form: PdfForm, field: FormField): void {
  if (!field.ref) return;
  const parent = dictAt(view, field.dict.get("Parent"));
  removeRef(view, parent ?? form.dict, parent ? "Kids" : "Fields", field.ref);
}

/** flattenFields burns the chosen fields (all but signature fields for `true`) into their pages and removes them from the form. */
export function flattenFields(pdf: PDF, view: PdfView, form: PdfForm, chosen: true | string[]): void {
  const names = chosen === true ? undefined : new Set(chosen);
  if (names) {
    const known = new Set(form.fields.map((field) => field.name));
    const unknown = [...names].filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new SignetError("FIELD_NOT_FOUND", `flatten names fields that are not in the form: ${unknown.map((name) => JSON.stringify(name)).join(", ")}.`, {
        details: unknown.map((name) => ({ field: "flatten", issue: `no field named ${JSON.stringify(name)}` })),
      });
    }
  }
  for (const field of form.fields) {
    if (names ? !names.has(field.name) : field.type === "signature") continue;
    for (const widget of field.widgets) burnWidget(pdf, view, form, widget);
    unlink(view, form, field);
  }
}
