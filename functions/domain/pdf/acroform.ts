import { PdfArray, PdfBool, type PdfDict, PdfName, PdfNumber, PdfRef, PdfString, type PdfObject } from "@libpdf/core";
import { deref, dictAt, type PdfView } from "#domain/pdf/pdf-file.ts";
import type { PageTreeShape } from "#domain/pdf/page-tree.ts";

/**
 * The one reader of a document's interactive form (ISO 32000-1 12.7): the field tree from the
 * catalog's /AcroForm /Fields, each field with its fully qualified name, its type and flags (with
 * the inheritable entries /FT, /Ff, /V, /DV, /MaxLen taken from the nearest ancestor), its value,
 * its options and export values, and its widgets. Verification (signature fields, the form rule of
 * the modification analysis) and signing (does the document hold signatures) read it; listing a
 * form for an API is a mapping of PdfForm.
 */

/** FormKind is how the document's form is made: none, an AcroForm, XFA with an AcroForm beside it, or XFA alone (rendered by the viewer). */
export type FormKind = "none" | "acroform" | "xfa-hybrid" | "xfa-dynamic";

/** FieldType is a terminal field's kind, from /FT and the button and choice flags. */
export type FieldType = "text" | "checkbox" | "radio" | "pushbutton" | "combo" | "list" | "signature" | "unknown";

/** FieldFlags are the field flags (/Ff) a form filler honours. */
export interface FieldFlags {
  readOnly: boolean;
  required: boolean;
  multiline: boolean;
  comb: boolean;
  password: boolean;
  multiSelect: boolean;
  editable: boolean;
}

/** FieldOption is one choice of a combo box or list (/Opt: an export value and what is shown). */
export interface FieldOption {
  value: string;
  label: string;
}

/** FormWidget is one widget annotation of a field: where it shows. */
export interface FormWidget {
  ref: PdfRef | null;
  dict: PdfDict;
  /** The page index (0-based) whose /Annots lists it, when the page tree was given and lists it. */
  page: number | null;
  /** /Rect normalised to [x1, y1, x2, y2] with x1 <= x2, y1 <= y2; null when absent or malformed. */
  rect: [number, number, number, number] | null;
  /** The rectangle has an area (a zero-size widget is an invisible signature). */
  visible: boolean;
}

/** FieldNode is one field dictionary of the tree (terminal or not), by fully qualified name. */
export interface FieldNode {
  name: string;
  ref: PdfRef | null;
  dict: PdfDict;
  /** /FT, inherited: Tx, Btn, Ch, Sig. */
  fieldType: string | undefined;
  terminal: boolean;
}

/** FormField is one terminal field: what a form filler and a verifier need. */
export interface FormField extends FieldNode {
  type: FieldType;
  flags: FieldFlags;
  maxLength: number | null;
  /** The current value: text, the chosen export value (a name for buttons), several for a multi-select list, or null. */
  value: string | string[] | null;
  /** Combo and list choices; for check boxes and radio buttons, the export values their widgets' appearances name. */
  options: FieldOption[];
  widgets: FormWidget[];
  /** A signature field whose /V is a signature dictionary. */
  signed: boolean;
  /** The signature dictionary of a signed signature field, with the reference /V holds (a signature dictionary must be indirect). */
  signature?: { ref: PdfRef | undefined; dict: PdfDict };
}

/** PdfForm is a revision's interactive form. */
export interface PdfForm {
  kind: FormKind;
  /** /AcroForm when the catalog has one. */
  dict: PdfDict | undefined;
  /** Every named field dictionary, parents before kids, in /Fields order. */
  nodes: FieldNode[];
  /** The terminal fields, in /Fields order. */
  fields: FormField[];
}

// Deeper than real forms nest (a few levels); bounds the walk.
const MAX_DEPTH = 32;
const INHERITED = ["FT", "Ff", "V", "DV", "MaxLen"] as const;
type Inherited = Partial<Record<(typeof INHERITED)[number], PdfObject>>;

/** flag reads bit `bit` (1-based, ISO 32000-1 table 221 ff.) of /Ff. */
const flag = (flags: number, bit: number) => (flags & (1 << (bit - 1))) !== 0;

function textOf(value: PdfObject | undefined): string | null {
  if (value instanceof PdfString) return value.asString();
  if (value instanceof PdfName) return value.value;
  return null;
}

function fieldType(fieldTypeName: string | undefined, flags: number): FieldType {
  if (fieldTypeName === "Tx") return "text";
  if (fieldTypeName === "Sig") return "signature";
  if (fieldTypeName === "Btn") return flag(flags, 17) ? "pushbutton" : flag(flags, 16) ? "radio" : "checkbox";
  if (fieldTypeName === "Ch") return flag(flags, 18) ? "combo" : "list";
  return "unknown";
}

function rectOf(view: PdfView, dict: PdfDict): [number, number, number, number] | null {
  const rect = deref(view, dict.get("Rect"));
  if (!(rect instanceof PdfArray) || rect.length !== 4) return null;
  const numbers = rect.toArray().map((item) => {
    const value = deref(view, item);
    return value instanceof PdfNumber ? value.value : Number.NaN;
  });
  if (numbers.some((value) => !Number.isFinite(value))) return null;
  const [x1, y1, x2, y2] = numbers as [number, number, number, number];
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
}

/** widgetPages maps each annotation a page's /Annots lists ("num gen") to the page index. */
function widgetPages(view: PdfView, pages: PageTreeShape | undefined): Map<string, number> {
  const found = new Map<string, number>();
  pages?.pages.forEach(({ dict }, index) => {
    const annots = deref(view, dict.get("Annots"));
    if (!(annots instanceof PdfArray)) return;
    for (const item of annots.toArray()) if (item instanceof PdfRef) found.set(`${item.objectNumber} ${item.generation}`, index);
  });
  return found;
}

function optionsOf(view: PdfView, dict: PdfDict, type: FieldType, widgets: FormWidget[]): FieldOption[] {
  if (type === "checkbox" || type === "radio") {
    const values = new Set<string>();
    for (const widget of widgets) {
      const normal = dictAt(view, dictAt(view, widget.dict.get("AP"))?.get("N"));
      for (const key of normal?.keys() ?? []) if (key.value !== "Off") values.add(key.value);
    }
    return [...values].map((value) => ({ value, label: value }));
  }
  const opt = deref(view, dict.get("Opt"));
  if (!(opt instanceof PdfArray)) return [];
  return opt.toArray().flatMap((item) => {
    const entry = deref(view, item);
    if (entry instanceof PdfArray) {
      const value = textOf(deref(view, entry.at(0)));
      return value === null ? [] : [{ value, label: textOf(deref(view, entry.at(1))) ?? value }];
    }
    const value = textOf(entry);
    return value === null ? [] : [{ value, label: value }];
  });
}

function fieldValue(view: PdfView, value: PdfObject | undefined): string | string[] | null {
  const resolved = deref(view, value);
  if (resolved instanceof PdfArray) return resolved.toArray().flatMap((item) => textOf(deref(view, item)) ?? []);
  return textOf(resolved);
}

/** terminalField reads what a terminal field is from its dictionary, the inherited entries and its widgets. */
function terminalField(view: PdfView, node: FieldNode, inherited: Inherited, widgets: FormWidget[]): FormField {
  const ff = deref(view, inherited.Ff);
  const flags = ff instanceof PdfNumber && Number.isSafeInteger(ff.value) ? ff.value : 0;
  const type = fieldType(node.fieldType, flags);
  const maxLength = deref(view, inherited.MaxLen);
  const field: FormField = {
    ...node,
    type,
    flags: {
      readOnly: flag(flags, 1),
      required: flag(flags, 2),
      multiline: type === "text" && flag(flags, 13),
      password: type === "text" && flag(flags, 14),
      comb: type === "text" && flag(flags, 25),
      multiSelect: type === "list" && flag(flags, 22),
      editable: type === "combo" && flag(flags, 19),
    },
    maxLength: maxLength instanceof PdfNumber && Number.isSafeInteger(maxLength.value) && maxLength.value >= 0 ? maxLength.value : null,
    value: type === "signature" ? null : fieldValue(view, inherited.V),
    options: optionsOf(view, node.dict, type, widgets),
    widgets,
    signed: false,
  };
  if (type === "signature") {
    const v = node.dict.get("V");
    const signature = dictAt(view, v);
    if (signature) Object.assign(field, { signed: true, signature: { ref: v instanceof PdfRef ? v : undefined, dict: signature } });
  }
  return field;
}

function widgetOf(view: PdfView, ref: PdfRef | null, dict: PdfDict, pages: Map<string, number>): FormWidget {
  const rect = rectOf(view, dict);
  const page = ref ? pages.get(`${ref.objectNumber} ${ref.generation}`) : undefined;
  return { ref, dict, page: page ?? null, rect, visible: rect !== null && (rect[2] - rect[0]) * (rect[3] - rect[1]) > 0 };
}

/** FieldWalk is the state of one walk of the field tree. */
interface FieldWalk {
  view: PdfView;
  pages: Map<string, number>;
  form: PdfForm;
  seen: Set<string>;
}

/** walkFields reads the field dictionaries of a /Fields or /Kids array: kids with /T are fields, kids without are widgets. */
function walkFields(walk: FieldWalk, items: PdfObject | undefined, parent: string, inherited: Inherited, depth: number): void {
  const array = deref(walk.view, items);
  if (!(array instanceof PdfArray) || depth > MAX_DEPTH) return;
  for (const item of array.toArray()) {
    const ref = item instanceof PdfRef ? item : null;
    if (ref) {
      const key = `${ref.objectNumber} ${ref.generation}`;
      if (walk.seen.has(key)) continue; // a field listed twice (or a loop) counts once
      walk.seen.add(key);
    }
    const dict = dictAt(walk.view, item);
    const title = textOf(dict?.get("T"));
    if (!dict || title === null) continue;
    const name = parent ? `${parent}.${title}` : title;
    const own: Inherited = { ...inherited };
    for (const key of INHERITED) if (dict.has(key)) own[key] = dict.get(key);
    const kids = deref(walk.view, dict.get("Kids"));
    const kidDicts = kids instanceof PdfArray ? kids.toArray().map((kid) => ({ ref: kid instanceof PdfRef ? kid : null, dict: dictAt(walk.view, kid) })) : [];
    const terminal = !kidDicts.some((kid) => kid.dict?.has("T"));
    const fieldTypeName = deref(walk.view, own.FT);
    const node: FieldNode = { name, ref, dict, fieldType: fieldTypeName instanceof PdfName ? fieldTypeName.value : undefined, terminal };
    walk.form.nodes.push(node);
    if (!terminal) {
      walkFields(walk, dict.get("Kids"), name, own, depth + 1);
      continue;
    }
    const widgets =
      kids instanceof PdfArray
        ? kidDicts.flatMap((kid) => (kid.dict ? [widgetOf(walk.view, kid.ref, kid.dict, walk.pages)] : []))
        : dict.has("Rect") || dict.getName("Subtype")?.value === "Widget"
          ? [widgetOf(walk.view, ref, dict, walk.pages)]
          : [];
    walk.form.fields.push(terminalField(walk.view, node, own, widgets));
  }
}

function formKind(view: PdfView, acroForm: PdfDict | undefined): FormKind {
  if (!acroForm) return "none";
  if (deref(view, acroForm.get("XFA")) === undefined) return "acroform";
  const needsRendering = deref(view, view.catalog.get("NeedsRendering"));
  return needsRendering instanceof PdfBool && needsRendering.value ? "xfa-dynamic" : "xfa-hybrid";
}

/**
 * readForm reads a revision's interactive form. With the page tree (PdfFile.pageTree), each
 * widget gets the index of the page that lists it. The walk is bounded (depth, each field once).
 */
export function readForm(view: PdfView, pages?: PageTreeShape): PdfForm {
  const dict = dictAt(view, view.catalog.get("AcroForm"));
  const form: PdfForm = { kind: formKind(view, dict), dict, nodes: [], fields: [] };
  if (dict) walkFields({ view, pages: widgetPages(view, pages), form, seen: new Set() }, dict.get("Fields"), "", {}, 0);
  return form;
}
