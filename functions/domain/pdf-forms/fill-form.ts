// Filling an existing PDF form (issue 39 item 2): check every value, write /V and an appearance
// stream per widget, optionally flatten, and save as an incremental update so earlier signatures
// stay valid (form filling is a change every signature and DocMDP level 2 and 3 permit).
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfString } from "@libpdf/core";
import { type FormField, type PdfForm, readForm } from "#domain/pdf/acroform.ts";
import { readCertification } from "#domain/pdf/docmdp.ts";
import { loadForWriting, readPdfFile } from "#domain/pdf/open-pdf.ts";
import { readPageTree } from "#domain/pdf/page-tree.ts";
import { DEFAULT_MAX_PDF_PAGES, deref, dictAt, type PdfView } from "#domain/pdf/pdf-file.ts";
import { DocumentFonts, type FontFiles } from "#domain/pdf-text/fonts.ts";
import { GlyphForms } from "#domain/pdf-text/operators.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { checkAppearance, emptyAppearance, type ListBoxView, TextDrawer } from "#domain/pdf-forms/appearance.ts";
import { type FieldValue, type PlannedValue, planValues } from "#domain/pdf-forms/field-values.ts";
import { flattenFields } from "#domain/pdf-forms/flatten.ts";
import { textStyle, widgetFrame } from "#domain/pdf-forms/widget-style.ts";
import { writerView } from "#domain/pdf-forms/writer-view.ts";
import { checkLockedFields } from "#domain/pdf-forms/locked-fields.ts";
import { lockingSignatures, signatureLocks } from "#domain/pdf/field-lock.ts";

/** FillRequest is what a PDF fill asks (docs/api.md, "PDF forms"). */
export interface FillRequest {
  fields: FieldValue[];
  /** true: burn every field into the page; names: only those. */
  flatten?: boolean | string[] | undefined;
  /** Fill a hybrid XFA form's AcroForm and remove the XFA. */
  dropXfa?: boolean | undefined;
}

/** FillDependencies are what filling needs from outside: the bundled fonts and the page limit. */
export interface FillDependencies {
  fonts: () => FontFiles;
  /** SIGNET_MAX_PDF_PAGES; DEFAULT_MAX_PDF_PAGES when not given. */
  maxPages?: number | undefined;
}

/** FormSession is one loaded form being filled. */
interface FormSession {
  pdf: PDF;
  view: PdfView;
  form: PdfForm;
  drawer: TextDrawer;
}

function checkKind(session: FormSession, request: FillRequest): void {
  const { form } = session;
  if (form.kind === "xfa-dynamic" || (form.kind === "xfa-hybrid" && form.fields.length === 0)) {
    throw new SignetError(
      "XFA_FORM",
      "The PDF is a dynamic XFA form: its fields exist only in the XFA the viewer renders, not in an AcroForm Signet can fill. Export it from the issuing software as a static (AcroForm) PDF.",
    );
  }
  if (form.kind === "xfa-hybrid" && !request.dropXfa) {
    throw new SignetError(
      "XFA_FORM",
      "The PDF is a hybrid XFA form: XFA viewers show the XFA data, not the AcroForm values Signet writes. Send dropXfa: true to fill the AcroForm and remove the XFA.",
      { details: [{ field: "dropXfa", issue: "must be true to fill a hybrid XFA form" }] },
    );
  }
  if (form.kind === "none") throw new SignetError("FIELD_NOT_FOUND", "The PDF has no form fields; POST /v1/annotate/fields lists a form's fields.");
}

/** showText is what a text or choice widget shows for a value: a choice's label rather than its export value. */
function shownText(field: FormField, value: string | string[]): string {
  const label = (item: string) => field.options.find((option) => option.value === item)?.label ?? item;
  return Array.isArray(value) ? value.map(label).join("\n") : field.type === "text" ? value : label(value);
}

function writeTextValue(session: FormSession, planned: PlannedValue): void {
  const { field } = planned;
  const value = planned.value;
  field.dict.set("V", Array.isArray(value) ? new PdfArray(value.map((item) => PdfString.fromString(item))) : PdfString.fromString(value));
  if (field.type === "list") field.dict.set("I", new PdfArray(listIndexes(field, value).map((index) => PdfNumber.of(index))));
  drawTextWidgets(session, field, value, field.widgets);
}

/** listBoxView is what a list box shows for `value`: its options' labels, the chosen ones (by export value, else label) and /TI. */
function listBoxView(session: FormSession, field: FormField, value: string | string[]): ListBoxView {
  const chosen = new Set(Array.isArray(value) ? value : [value]);
  const byValue = field.options.flatMap((option, index) => (chosen.has(option.value) ? [index] : []));
  const selected = byValue.length > 0 ? byValue : field.options.flatMap((option, index) => (chosen.has(option.label) ? [index] : []));
  const top = deref(session.view, field.dict.get("TI"));
  return { labels: field.options.map((option) => option.label), selected, topIndex: top instanceof PdfNumber ? top.value : 0 };
}

/** drawTextWidgets gives widgets of a text or choice field an appearance showing `value` (a list box: its options, the chosen ones highlighted). */
function drawTextWidgets(session: FormSession, field: FormField, value: string | string[], widgets: FormField["widgets"]): void {
  for (const widget of widgets) {
    const frame = widgetFrame(session.view, widget);
    if (!frame) continue;
    const style = textStyle(session.view, widget, field, session.form.dict);
    const normal =
      field.type === "list"
        ? session.drawer.listAppearance(listBoxView(session, field, value), frame.box, style, frame.matrix)
        : session.drawer.textAppearance(shownText(field, value), frame.box, style, frame.matrix);
    widget.dict.set("AP", PdfDict.of({ N: normal }));
  }
}

/** stateNames are the appearance states a button widget has under /AP /N. */
function stateNames(view: PdfView, widget: FormField["widgets"][number]): string[] {
  const normal = dictAt(view, dictAt(view, widget.dict.get("AP"))?.get("N"));
  return normal ? [...normal.keys()].map((key) => key.value) : [];
}

function writeButtonValue(session: FormSession, planned: PlannedValue): void {
  const { field } = planned;
  const state = planned.value as string;
  field.dict.set("V", PdfName.of(state));
  for (const widget of field.widgets) {
    const states = stateNames(session.view, widget);
    if (states.length === 0 && field.type === "checkbox") {
      // A check box drawn by the viewer (NeedAppearances): give it both states.
      const frame = widgetFrame(session.view, widget);
      if (!frame) continue;
      const on = state === "Off" ? (field.options[0]?.value ?? "Yes") : state;
      widget.dict.set(
        "AP",
        PdfDict.of({
          N: PdfDict.of({ [on]: checkAppearance(session.pdf, frame.box, [0, 0, 0], frame.matrix), Off: emptyAppearance(session.pdf, frame.box, frame.matrix) }),
        }),
      );
      widget.dict.set("AS", PdfName.of(state));
      continue;
    }
    widget.dict.set("AS", PdfName.of(states.includes(state) ? state : "Off"));
  }
}

/**
 * drawMissingAppearances draws the fields nobody drew (a form that relied on /NeedAppearances):
 * each text and choice widget without a normal appearance gets one showing its current value, so
 * /NeedAppearances can go and every viewer shows the same thing.
 */
function drawMissingAppearances(session: FormSession): void {
  const locks = signatureLocks(session.view, session.form);
  for (const field of session.form.fields) {
    // A locked field keeps its (missing) appearance: drawing one would invalidate the signature locking it.
    if (!["text", "combo", "list"].includes(field.type) || lockingSignatures(locks, field.name).length > 0) continue;
    const bare = field.widgets.filter((widget) => dictAt(session.view, widget.dict.get("AP"))?.get("N") === undefined);
    if (bare.length > 0) drawTextWidgets(session, field, field.value ?? "", bare);
  }
}

/** ownsEveryAppearance tells whether every text and choice widget now has a normal appearance (then /NeedAppearances can go). */
function ownsEveryAppearance(view: PdfView, form: PdfForm): boolean {
  return form.fields
    .filter((field) => ["text", "combo", "list"].includes(field.type))
    .every((field) => field.widgets.every((widget) => dictAt(view, widget.dict.get("AP"))?.get("N") !== undefined));
}

/** isSigned tells whether an update must keep earlier signatures: a signed field or a certification. */
function isSigned(view: PdfView, form: PdfForm): boolean {
  return form.fields.some((field) => field.signed) || readCertification(view) !== undefined;
}

/** openSession loads the document for writing and reads its form through the writer's objects. */
async function openSession(bytes: Buffer, dependencies: FillDependencies): Promise<FormSession> {
  const maxPages = dependencies.maxPages ?? DEFAULT_MAX_PDF_PAGES;
  const file = readPdfFile(bytes, maxPages);
  const pdf = await loadForWriting(bytes, file, maxPages);
  const view = writerView(pdf);
  const form = readForm(view, readPageTree(view, maxPages));
  return { pdf, view, form, drawer: new TextDrawer(pdf, new DocumentFonts(pdf, dependencies.fonts()), new GlyphForms(pdf)) };
}

/** signatureNames names what makes the form signed: its signed fields, else its certification. */
function signatureNames(session: FormSession): string {
  const names = session.form.fields.filter((field) => field.signed).map((field) => field.name);
  return names.length > 0 ? names.join(", ") : "(certification)";
}

/**
 * checkSignedChanges refuses what a signature forbids, with the code every PDF tool answers for it
 * (409 WOULD_INVALIDATE_SIGNATURES): any change to a PDF certified with P=1, and flattening a signed form.
 */
function checkSignedChanges(session: FormSession, request: FillRequest): boolean {
  const signed = isSigned(session.view, session.form);
  if (readCertification(session.view)?.permission === 1) {
    throw new SignetError(
      "WOULD_INVALIDATE_SIGNATURES",
      `The PDF is certified against any change (DocMDP P=1, ${signatureNames(session)}); filling it would invalidate the certification.`,
      { details: [{ field: "document", issue: `signed: ${signatureNames(session)}` }] },
    );
  }
  if (signed && request.flatten && !(Array.isArray(request.flatten) && request.flatten.length === 0)) {
    throw new SignetError(
      "WOULD_INVALIDATE_SIGNATURES",
      `The PDF is signed (${signatureNames(session)}): flattening removes fields and changes page content, which no signature permits. Fill without flatten, or flatten before signing.`,
      { details: [{ field: "flatten", issue: `not allowed on a signed or certified PDF (signed: ${signatureNames(session)})` }] },
    );
  }
  return signed;
}

/**
 * checkWidgetsStayExplained refuses (409 WOULD_INVALIDATE_SIGNATURES) a fill after a signature that
 * strict validators cannot explain as form filling: a field whose widgets are annotations of their
 * own (a radio group's buttons, a check box split from its widget, a text field shown twice),
 * since a fill switches their /AS or redraws their appearance and pyHanko 0.20.1 explains changes
 * to field dictionaries (those with /T) only; and a list box whose /I selection indexes would
 * change, a key no validator lets change after a signature. Filling them before the signature
 * (sign's `fields`) keeps every signature valid.
 */
function checkWidgetsStayExplained(session: FormSession, plan: readonly PlannedValue[]): void {
  const refused = plan.flatMap(({ field, value }) => {
    if (field.widgets.some((widget) => !widget.dict.has("T"))) return [{ field: `fields.${field.name}`, issue: "its widgets are annotations of their own" }];
    if (field.type === "list" && field.dict.has("I") && !sameIndexes(session, field, value))
      return [{ field: `fields.${field.name}`, issue: "its /I selection would change" }];
    return [];
  });
  if (refused.length === 0) return;
  throw new SignetError(
    "WOULD_INVALIDATE_SIGNATURES",
    `The PDF is signed (${signatureNames(session)}): filling ${refused.map((item) => `"${item.field.slice("fields.".length)}"`).join(", ")} would change annotations or keys that strict validators (pyHanko) do not count as form filling, so the signature would no longer hold there. Fill these fields before signing (POST /v1/sign takes the same fields).`,
    { details: refused },
  );
}

/** sameIndexes tells whether a list box's /I already names the options `value` chooses. */
function sameIndexes(session: FormSession, field: FormField, value: string | string[]): boolean {
  const current = deref(session.view, field.dict.get("I"));
  const indexes = current instanceof PdfArray ? [...current].map((item) => (item instanceof PdfNumber ? item.value : -1)) : [];
  return indexes.join(",") === listIndexes(field, value).join(",");
}

/** listIndexes are the /I entries of a list box choosing `value` (its options' indexes, ascending). */
function listIndexes(field: FormField, value: string | string[]): number[] {
  return (Array.isArray(value) ? value : [value]).map((item) => field.options.findIndex((option) => option.value === item)).sort((a, b) => a - b);
}

/**
 * fillPdfForm fills a PDF form: every value is checked first (planValues: unknown, read-only and
 * misfitting fields all reported at once), then /V and one appearance stream per widget are
 * written, /NeedAppearances goes when every appearance is Signet's, the chosen fields are
 * flattened, and the result is an incremental update of the input (a full rewrite only for an
 * unsigned file that cannot take one).
 */
export async function fillPdfForm(bytes: Buffer, request: FillRequest, dependencies: FillDependencies): Promise<Buffer> {
  const session = await openSession(bytes, dependencies);
  checkKind(session, request);
  const plan = planValues(session.form.fields, request.fields);
  const signed = checkSignedChanges(session, request);
  checkLockedFields(
    signatureLocks(session.view, session.form),
    plan.map((planned) => planned.field.name),
  );
  if (signed) checkWidgetsStayExplained(session, plan);
  const { form } = session;
  for (const planned of plan) {
    if (planned.field.type === "checkbox" || planned.field.type === "radio") writeButtonValue(session, planned);
    else writeTextValue(session, planned);
  }
  if (request.dropXfa && form.dict) {
    form.dict.delete("XFA");
    session.view.catalog.delete("NeedsRendering");
  }
  if (form.dict?.has("NeedAppearances")) drawMissingAppearances(session);
  if (form.dict?.has("NeedAppearances") && ownsEveryAppearance(session.view, form)) form.dict.delete("NeedAppearances");
  if (request.flatten) flattenFields(session.pdf, session.view, form, request.flatten);
  const blocker = session.pdf.canSaveIncrementally();
  if (blocker && signed)
    throw new SignetError("INVALID_DOCUMENT", `The signed PDF cannot take an incremental update (${blocker}); its signatures could not be kept.`);
  const saved = await session.pdf.save({ incremental: !blocker, subsetFonts: true });
  return Buffer.from(saved.buffer, saved.byteOffset, saved.byteLength);
}
