// pyHanko before 0.3x (0.20.1 among them) compares a form field's /AP /N, /D and /R as indirect
// references on every update after a signature; a field merged with its widget whose /AP holds a
// direct state dictionary (a check box's << /Yes 12 0 R /Off 13 0 R >>) makes its validation raise
// instead of giving a verdict (upstream issues #719, #721). Before Signet's first signature such a
// field is split into a field and its widget, so the field has no /AP. Making the state dictionary
// indirect instead would satisfy pyHanko, but poppler does not follow an indirect state dictionary
// and draws those check boxes empty.
import { type PDF, PdfArray, PdfDict, PdfRef, PdfStream } from "@libpdf/core";
import { type FormField, type PdfForm, readForm } from "#domain/pdf/acroform.ts";
import { readCertification } from "#domain/pdf/docmdp.ts";
import { loadForWriting, readPdfFile } from "#domain/pdf/open-pdf.ts";
import { readPageTree } from "#domain/pdf/page-tree.ts";
import { DEFAULT_MAX_PDF_PAGES, deref, dictAt, type PdfView } from "#domain/pdf/pdf-file.ts";
import { writerView } from "#domain/pdf-forms/writer-view.ts";

const APPEARANCE_KINDS = ["N", "D", "R"] as const;
/** The field entries of a merged field and widget (ISO 32000-1 tables 220-232); the rest stays on the widget. */
const FIELD_KEYS = ["FT", "T", "TU", "TM", "Ff", "V", "DV", "Opt", "MaxLen", "TI", "I", "Lock", "SV", "Parent"];

/** directStates tells whether a widget's /AP holds a state dictionary directly under /N, /D or /R. */
function directStates(view: PdfView, widget: PdfDict): boolean {
  const appearances = dictAt(view, widget.get("AP"));
  return APPEARANCE_KINDS.some((kind) => {
    const states = appearances?.get(kind);
    return states instanceof PdfDict && !(states instanceof PdfStream);
  });
}

/** containerOf is the array that lists a field: its parent's /Kids, or the form's /Fields. */
function containerOf(view: PdfView, form: PdfForm, field: PdfDict): PdfArray | undefined {
  const parent = dictAt(view, field.get("Parent"));
  const array = deref(view, parent ? parent.get("Kids") : form.dict?.get("Fields"));
  return array instanceof PdfArray ? array : undefined;
}

/**
 * separateWidget splits a field merged with its widget whose /AP holds direct state dictionaries
 * into a field (a new object, listed where the merged one was) and its widget (the same object, a
 * kid): pyHanko then compares the field, which has no /AP, and every viewer draws the widget as before.
 */
function separateWidget(pdf: PDF, view: PdfView, form: PdfForm, field: FormField): boolean {
  const [widget] = field.widgets;
  if (field.widgets.length !== 1 || !widget?.ref || widget.dict !== field.dict || !directStates(view, widget.dict)) return false;
  const container = containerOf(view, form, widget.dict);
  const ref = widget.ref;
  const index =
    container?.toArray().findIndex((item) => item instanceof PdfRef && item.objectNumber === ref.objectNumber && item.generation === ref.generation) ?? -1;
  if (!container || index < 0) return false;
  const own = PdfDict.of({});
  for (const key of FIELD_KEYS) {
    const value = widget.dict.get(key);
    if (value === undefined) continue;
    own.set(key, value);
    widget.dict.delete(key);
  }
  own.set("Kids", new PdfArray([ref]));
  const ownRef = pdf.register(own);
  widget.dict.set("Parent", ownRef);
  container.set(index, ownRef);
  return true;
}

/**
 * separateWidgetsBeforeSigning is the PDF with every field merged with a widget whose /AP holds a
 * direct state dictionary split into field and widget (separateWidget), as an incremental update (a full rewrite only when the file cannot take one), or the
 * PDF itself when there is nothing to move. Only an unsigned, unencrypted form is touched: a signed
 * one may change only as its signatures permit.
 */
export async function separateWidgetsBeforeSigning(bytes: Buffer, maxPages = DEFAULT_MAX_PDF_PAGES): Promise<Buffer> {
  try {
    return await moveAppearanceStates(bytes, maxPages);
  } catch {
    // A file this step cannot read goes to signing unchanged: signing reads (or repairs) it itself
    // and answers with the precise error.
    return bytes;
  }
}

async function moveAppearanceStates(bytes: Buffer, maxPages: number): Promise<Buffer> {
  const file = readPdfFile(bytes, maxPages);
  if (file?.encrypted) return bytes;
  const pdf = await loadForWriting(bytes, file, maxPages);
  const view = writerView(pdf);
  const form = readForm(view, readPageTree(view, maxPages));
  if (form.kind === "none" || form.fields.some((field) => field.signed) || readCertification(view) !== undefined) return bytes;
  if (form.fields.filter((field) => separateWidget(pdf, view, form, field)).length === 0) return bytes;
  const blocker = pdf.canSaveIncrementally();
  const saved = await pdf.save({ incremental: !blocker });
  return Buffer.from(saved.buffer, saved.byteOffset, saved.byteLength);
}
