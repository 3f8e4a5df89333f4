// Where a visible signature goes: an existing empty signature field of the document (by its fully
// qualified name), or a new one placed on a page. Errors name what to fix in `signatureField`.
import { type PDF, PDFPage, PdfArray, PdfDict, PdfName, PdfNumber, PdfRef } from "@libpdf/core";
import { readForm, type FormField } from "#domain/pdf/acroform.ts";
import { readCertification } from "#domain/pdf/docmdp.ts";
import { type FieldLock, lockPermission, sigFieldLock } from "#domain/pdf/field-lock.ts";
import { documentLocks } from "#domain/signing/field-lock-signature.ts";
import { fieldRefOf } from "#domain/pdf/libpdf-internals.ts";
import type { PageTreeShape } from "#domain/pdf/page-tree.ts";
import { deref, dictAt, type PdfFile, type PdfView } from "#domain/pdf/pdf-file.ts";
import { SignetError } from "#domain/shared/errors.ts";

/** Rect is [x1, y1, x2, y2] in points, in the page's default user space (origin at its lower left corner). */
export type Rect = [number, number, number, number];

/** SignatureFieldRequest names an existing empty signature field, or places a new one (page counts from 1). */
export type SignatureFieldRequest =
  | { name: string; page?: undefined; rect?: undefined; lock?: undefined }
  | { name?: string | undefined; page: number; rect: Rect; lock?: FieldLock | undefined };

/** FieldTarget is where the signature goes: the field whose /V takes it and the widgets that show it. */
export interface FieldTarget {
  field: PdfDict;
  /** Every widget of the field Signet can write to, each with its own size (zero for an invisible one: no appearance) and its page's /Rotate. */
  widgets: Array<{ dict: PdfDict; box: AppearanceBox }>;
}

/** Rotation is a page's /Rotate, normalised. */
export type Rotation = 0 | 90 | 180 | 270;

/** AppearanceBox is what an appearance is drawn for: the widget's size in default user space and the page's rotation. */
export interface AppearanceBox {
  width: number;
  height: number;
  rotate: Rotation;
}

const placement = (field: string, message: string, issue: string) => new SignetError("FIELD_PLACEMENT", message, { details: [{ field, issue }] });

/** pageAt is page `index` of the shape as a page of the document being written (null for a direct page dictionary). */
function pageAt(pdf: PDF, shape: PageTreeShape, index: number): PDFPage | null {
  const ref = shape.pages[index]?.ref;
  const dict = ref ? pdf.getObject(ref) : undefined;
  return ref && dict instanceof PdfDict ? new PDFPage(ref, dict, index, pdf.context) : null;
}

/** existingTarget checks that `name` is an empty signature field with an indirect widget and returns it. */
function existingTarget(pdf: PDF, file: PdfFile, name: string): FieldTarget {
  const fields = readForm(file.latest, file.pageTree).fields;
  const field = fields.find((candidate) => candidate.name === name);
  if (!field) {
    const empty = fields.filter((candidate) => candidate.type === "signature" && !candidate.signed).map((candidate) => `"${candidate.name}"`);
    const known = empty.length > 0 ? `its empty signature fields: ${empty.slice(0, 10).join(", ")}` : "it has no empty signature field";
    throw new SignetError("FIELD_NOT_FOUND", `The document has no field named "${name}" (${known}); or give page and rect for a new field.`, {
      details: [{ field: "signatureField.name", issue: `no field "${name}"` }],
    });
  }
  if (field.type !== "signature") {
    throw new SignetError("FIELD_TYPE_MISMATCH", `The field "${name}" is a ${field.type} field, not a signature field; name a signature field.`, {
      details: [{ field: "signatureField.name", issue: `a ${field.type} field` }],
    });
  }
  if (field.signed) {
    throw new SignetError(
      "FIELD_ALREADY_SIGNED",
      `The signature field "${name}" already holds a signature; name an empty signature field, or give page and rect for a new one.`,
      {
        details: [{ field: "signatureField.name", issue: "already signed" }],
      },
    );
  }
  return writableTarget(pdf, file.latest, file.pageTree, field);
}

/**
 * writableTarget is the field's dictionary and its widgets as objects of the document being written:
 * a field shown in several places (one widget per page, say) gets its appearance in each.
 */
function writableTarget(pdf: PDF, view: PdfView, shape: PageTreeShape, field: FormField): FieldTarget {
  const fieldDict = field.ref ? pdf.getObject(field.ref) : undefined;
  const widgets = field.widgets.flatMap((widget) => {
    const dict = widget.ref ? pdf.getObject(widget.ref) : undefined;
    if (!(dict instanceof PdfDict)) return [];
    const [x1, y1, x2, y2] = widget.rect ?? [0, 0, 0, 0];
    const rotate = widget.page === null ? 0 : pageRotation(view, shape.pages[widget.page]!.dict);
    return [{ dict, box: { width: x2 - x1, height: y2 - y1, rotate } }];
  });
  if (widgets.length === 0 || !(fieldDict instanceof PdfDict)) {
    throw new SignetError(
      "INVALID_DOCUMENT",
      `The signature field "${field.name}" has no widget Signet can write to; give page and rect for a new field instead.`,
    );
  }
  return { field: fieldDict, widgets };
}

/** inheritedBox reads a page's box (/MediaBox or /CropBox, both inheritable from /Pages nodes) as [x1, y1, x2, y2], normalised. */
function inheritedBox(view: PdfView, page: PdfDict, name: "MediaBox" | "CropBox"): Rect | undefined {
  let node: PdfDict | undefined = page;
  for (let depth = 0; node && depth < 64; depth++) {
    const box = deref(view, node.get(name));
    if (box instanceof PdfArray && box.length === 4) {
      const values = box.toArray().map((item) => deref(view, item));
      if (values.every((value) => value instanceof PdfNumber)) {
        const [x1, y1, x2, y2] = values.map((value) => (value as PdfNumber).value) as Rect;
        return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
      }
    }
    node = dictAt(view, node.get("Parent"));
  }
  return undefined;
}

/** pageRotation is a page's /Rotate (inheritable), a multiple of 90 normalised to 0..270; anything else counts as 0, as readers do. */
function pageRotation(view: PdfView, page: PdfDict): Rotation {
  let node: PdfDict | undefined = page;
  for (let depth = 0; node && depth < 64; depth++) {
    const value = deref(view, node.get("Rotate"));
    if (value instanceof PdfNumber) {
      const turned = ((value.value % 360) + 360) % 360;
      return turned === 90 || turned === 180 || turned === 270 ? turned : 0;
    }
    node = dictAt(view, node.get("Parent"));
  }
  return 0;
}

/** pageBox is the visible area of a page as readers show it: its crop box within its media box (US Letter when it names none, as viewers assume). */
function pageBox(view: PdfView, page: PdfDict): Rect {
  const media = inheritedBox(view, page, "MediaBox") ?? [0, 0, 612, 792];
  const crop = inheritedBox(view, page, "CropBox") ?? media;
  return [Math.max(media[0], crop[0]), Math.max(media[1], crop[1]), Math.min(media[2], crop[2]), Math.min(media[3], crop[3])];
}

/** newTarget checks the page and rectangle and adds a signature field (field and widget merged) listed in the page's /Annots. */
function newTarget(pdf: PDF, file: PdfFile, request: SignatureFieldRequest & { page: number; rect: Rect }, fallbackName: string): FieldTarget {
  const shape = file.pageTree;
  const count = shape.pages.length;
  if (request.page > count) {
    throw placement(
      "signatureField.page",
      `signatureField.page is ${request.page}, but the document has ${count} page${count === 1 ? "" : "s"}.`,
      `at most ${count}`,
    );
  }
  const page = pageAt(pdf, shape, request.page - 1);
  if (!page)
    throw placement("signatureField.page", `Page ${request.page} cannot list a new field (a direct page dictionary); choose another page.`, "not writable");
  const [x1, y1, x2, y2] = request.rect;
  const box = pageBox(file.latest, shape.pages[request.page - 1]!.dict);
  const inside = x1 < x2 && y1 < y2 && x1 >= box[0] && y1 >= box[1] && x2 <= box[2] && y2 <= box[3];
  if (!inside) {
    const shown = box.map((value) => Math.round(value * 100) / 100).join(" ");
    throw placement(
      "signatureField.rect",
      `signatureField.rect [${request.rect.join(", ")}] is not inside page ${request.page} (${shown}); give [x1, y1, x2, y2] with x1 < x2 and y1 < y2 within the page, in points from its lower left corner.`,
      `outside page ${request.page} (${shown})`,
    );
  }
  const form = pdf.getOrCreateForm();
  const name = request.name ?? fallbackName;
  if (form.getFields().some((field) => field.name === name)) {
    throw placement(
      "signatureField.name",
      `The document already has a field named "${name}"; give that name alone to sign into it, or another name.`,
      "name in use",
    );
  }
  const field = form.createSignatureField(name);
  const dict = field.getDict();
  dict.delete("Kids");
  dict.set("Type", PdfName.of("Annot"));
  dict.set("Subtype", PdfName.of("Widget"));
  dict.set("F", PdfNumber.of(132)); // print, locked
  dict.set("P", page.ref);
  dict.set("Rect", new PdfArray(request.rect.map((value) => PdfNumber.of(value))));
  if (request.lock) dict.set("Lock", PdfDict.of(sigFieldLock(request.lock)));
  const ref = fieldRefOf(field);
  if (ref instanceof PdfRef) {
    const annots = page.dict.getArray("Annots", (item: PdfRef) => pdf.getObject(item));
    if (annots) annots.push(ref);
    else page.dict.set("Annots", new PdfArray([ref]));
  }
  return { field: dict, widgets: [{ dict, box: { width: x2 - x1, height: y2 - y1, rotate: pageRotation(file.latest, shape.pages[request.page - 1]!.dict) } }] };
}

/**
 * placeInField puts the signature dictionary into the requested field (its /V) and, when the
 * widget has an area, the appearance `draw` makes for its size into the widget's /AP /N: every widget of the field.
 */
export function placeInField(
  pdf: PDF,
  file: PdfFile,
  request: SignatureFieldRequest,
  signature: PdfRef,
  fallbackName: string,
  draw: ((box: AppearanceBox) => PdfRef) | undefined,
): void {
  if (request.page !== undefined && (readCertification(file.latest) !== undefined || lockPermission(documentLocks(file)) !== undefined)) {
    // A new widget on a page of a certified document is a change no DocMDP level permits (pyHanko
    // and verify both class it "other"): the certification would break. A lock's /P counts as one.
    throw placement(
      "signatureField.page",
      "The document is certified (or a signature's field lock sets a DocMDP permission): a new visible signature field would break it. Sign into one of its empty signature fields (signatureField.name), or leave signatureField out for an invisible signature.",
      "no new visible field after a certification",
    );
  }
  const target = request.page === undefined ? existingTarget(pdf, file, request.name) : newTarget(pdf, file, request, fallbackName);
  target.field.set("V", signature);
  for (const { dict, box } of target.widgets) if (draw && box.width > 0 && box.height > 0) dict.set("AP", PdfDict.of({ N: draw(box) }));
}
