import { PdfArray, PdfDict, PdfNumber, PdfRef } from "@libpdf/core";
import { differingKey, same } from "#domain/pdf/objects.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import { type Analysis, deref, dictAt, keyOf, SuspiciousChangeError, type ModificationRule, type View } from "#domain/verification/modification-rules/rule.ts";

const ACROFORM_EXEMPT = new Set(["Fields", "DR", "DA", "Q", "NeedAppearances"]);
const FIELD_ALWAYS_MODIFIABLE = new Set(["Ff", "Type"]);
const VALUE_UPDATE_KEYS = new Set([...FIELD_ALWAYS_MODIFIABLE, "AP", "AS", "V", "F", "DA", "Q"]);
// A separate widget of a filled field may switch its appearance state, nothing more: not /F (hiding it is no fill), and
// not its appearance streams (pyHanko 0.20.1 calls a kid widget's redrawn appearance "other"; sign-modifications agrees).
const WIDGET_UPDATE_KEYS = new Set(["AS"]);

interface FieldEntry {
  name: string;
  type: string | undefined;
  ref: PdfRef;
}

/** listFields lists a revision's named field dictionaries by fully qualified name, from the one form reader (acroform.ts). */
function listFields(view: View): Map<string, FieldEntry> {
  const out = new Map<string, FieldEntry>();
  for (const node of readForm(view).nodes) if (node.ref) out.set(node.name, { name: node.name, type: node.fieldType, ref: node.ref });
  return out;
}

function isVisible(view: View, annotation: PdfDict): boolean {
  const rect = deref(view, annotation.get("Rect"));
  if (!(rect instanceof PdfArray) || rect.length < 4) return false;
  const [x1, y1, x2, y2] = rect.toArray().map((item) => (item instanceof PdfNumber ? item.value : 0)) as [number, number, number, number];
  return Math.abs(x2 - x1) * Math.abs(y2 - y1) > 0;
}

function fieldVisible(view: View, field: PdfDict): boolean {
  if (isVisible(view, field)) return true;
  const kids = deref(view, field.get("Kids"));
  return (
    kids instanceof PdfArray &&
    kids.toArray().some((kid) => {
      const dict = dictAt(view, kid);
      return dict ? isVisible(view, dict) : false;
    })
  );
}

/** appearanceUpdate explains new appearance streams of a field (and in-place rewrites of its own ones). */
function appearanceUpdate(analysis: Analysis, oldField: PdfDict | undefined, newField: PdfDict): void {
  if (newField.get("AP") === undefined) return;
  analysis.refUpdate(oldField, newField, "AP", "form_filling");
  const ap = dictAt(analysis.current, newField.get("AP"));
  if (!ap) throw new SuspiciousChangeError("an /AP entry is not a dictionary");
  const oldAp = oldField ? dictAt(analysis.signed, oldField.get("AP")) : undefined;
  for (const key of ["N", "R", "D"]) {
    const value = ap.get(key);
    analysis.explainAll(analysis.newDependencies(value), "form_filling");
    const before = oldAp?.get(key);
    if (value instanceof PdfRef && same(value, before)) {
      analysis.explain(value, "form_filling");
      analysis.explainAll(analysis.newDependencies(analysis.current.resolve(value) ?? undefined), "form_filling");
    }
  }
}

/** signatureValue explains the signature dictionary a field's /V points to. */
function signatureValue(analysis: Analysis, field: PdfDict, visible: boolean): void {
  const value = field.get("V");
  if (!(value instanceof PdfRef)) throw new SuspiciousChangeError("a signature field's value is not an indirect reference");
  const signature = analysis.current.resolve(value);
  if (!(signature instanceof PdfDict)) throw new SuspiciousChangeError("a signature field's value is not a dictionary");
  const level = signature.getName("Type")?.value === "DocTimeStamp" && !visible ? "lta" : "form_filling";
  analysis.explain(value, level);
  const references = deref(analysis.current, signature.get("Reference"));
  if (references instanceof PdfArray) {
    for (const reference of references.toArray()) {
      const params = dictAt(analysis.current, reference)?.get("TransformParams");
      if (params instanceof PdfRef) analysis.explain(params, level);
    }
  }
}

/** formRules checks the interactive form: fields filled, signature fields added, nothing deleted. Records the new signature widgets. */
function formRules(analysis: Analysis): void {
  const { signed, current } = analysis;
  const widgets = analysis.signatureWidgets;
  if (current.catalog.get("AcroForm") === undefined) {
    if (signed.catalog.get("AcroForm") !== undefined) throw new SuspiciousChangeError("the interactive form was removed");
    return;
  }
  analysis.refUpdate(signed.catalog, current.catalog, "AcroForm", "lta");
  const oldForm = dictAt(signed, signed.catalog.get("AcroForm")) ?? new PdfDict();
  const newForm = dictAt(current, current.catalog.get("AcroForm"));
  if (!newForm) throw new SuspiciousChangeError("/AcroForm is not a dictionary");
  const key = differingKey(oldForm, newForm, ACROFORM_EXEMPT);
  if (key) throw new SuspiciousChangeError(`the form's /${key} changed`);
  analysis.refUpdate(oldForm, newForm, "Fields", "lta");
  if (newForm.get("DR") !== undefined) {
    analysis.refUpdate(oldForm, newForm, "DR", "form_filling");
    analysis.explainAll(analysis.newDependencies(newForm.get("DR")), "form_filling");
  }
  const before = listFields(signed);
  const after = listFields(current);
  for (const name of before.keys()) if (!after.has(name)) throw new SuspiciousChangeError(`the form field "${name}" was deleted`);
  for (const [name, entry] of after) {
    const field = current.resolve(entry.ref);
    if (!(field instanceof PdfDict)) continue;
    const previous = before.get(name);
    if (previous && previous.type !== entry.type) throw new SuspiciousChangeError(`the type of form field "${name}" changed`);
    if (!previous) {
      if (entry.type !== "Sig") throw new SuspiciousChangeError(`a form field other than a signature field ("${name}") was added`);
      const visible = fieldVisible(current, field);
      if (visible && analysis.docMdp !== undefined) throw new SuspiciousChangeError(`a visible signature field ("${name}") was added after a certification`);
      const level = visible ? "form_filling" : "lta";
      if (analysis.isNew(entry.ref)) analysis.explain(entry.ref, level);
      for (const dep of ["AP", "Lock", "SV"]) analysis.explainAll(analysis.newDependencies(field.get(dep)), "form_filling");
      const kids = deref(current, field.get("Kids"));
      if (kids instanceof PdfArray) {
        if (field.get("Kids") instanceof PdfRef && analysis.isNew(field.get("Kids") as PdfRef)) analysis.explain(field.get("Kids") as PdfRef, level);
        for (const kid of kids.toArray()) {
          const widget = dictAt(current, kid);
          if (!(kid instanceof PdfRef) || !widget || widget.has("T")) continue;
          widgets.add(keyOf(kid));
          if (analysis.isNew(kid)) analysis.explain(kid, level);
          analysis.explainAll(analysis.newDependencies(widget.get("AP")), "form_filling");
        }
      } else widgets.add(keyOf(entry.ref));
      if (field.has("V")) signatureValue(analysis, field, visible);
      continue;
    }
    const oldField = signed.resolve(previous.ref);
    if (!(oldField instanceof PdfDict)) continue;
    if (!same(previous.ref, entry.ref)) throw new SuspiciousChangeError(`the form field "${name}" was replaced by another object`);
    if (entry.type === "Sig") {
      const wasSigned = oldField.has("V");
      if (!wasSigned && field.has("V")) {
        const changed = differingKey(oldField, field, VALUE_UPDATE_KEYS);
        if (changed) throw new SuspiciousChangeError(`the signature field "${name}" changed its /${changed}`);
        analysis.explain(entry.ref, "lta");
        appearanceUpdate(analysis, oldField, field);
        signatureValue(analysis, field, fieldVisible(current, field));
      } else if (!differingKey(oldField, field, FIELD_ALWAYS_MODIFIABLE)) analysis.explain(entry.ref, "lta");
      continue;
    }
    const changed = differingKey(oldField, field, VALUE_UPDATE_KEYS);
    if (changed) throw new SuspiciousChangeError(`the form field "${name}" changed its /${changed}`);
    analysis.explain(entry.ref, "form_filling");
    appearanceUpdate(analysis, oldField, field);
    if (!same(oldField.get("V"), field.get("V"))) analysis.explainAll(analysis.newDependencies(field.get("V")), "form_filling");
    widgetUpdates(analysis, name, oldField, field);
  }
}

/**
 * widgetUpdates explains the widgets of a filled field that are objects of their own (a radio
 * group's buttons): each may switch its appearance state (/AS) to one of the appearances it
 * already has, and change nothing else.
 */
function widgetUpdates(analysis: Analysis, name: string, oldField: PdfDict, field: PdfDict): void {
  const kids = deref(analysis.current, field.get("Kids"));
  if (!(kids instanceof PdfArray)) return;
  const oldKids = deref(analysis.signed, oldField.get("Kids"));
  const before = new Set(oldKids instanceof PdfArray ? oldKids.toArray().flatMap((kid) => (kid instanceof PdfRef ? [keyOf(kid)] : [])) : []);
  for (const kid of kids.toArray()) {
    if (!(kid instanceof PdfRef) || !before.has(keyOf(kid))) continue;
    const widget = dictAt(analysis.current, kid);
    const oldWidget = dictAt(analysis.signed, kid);
    if (!widget || !oldWidget || widget.has("T")) continue;
    const changed = differingKey(oldWidget, widget, WIDGET_UPDATE_KEYS);
    if (changed) throw new SuspiciousChangeError(`a widget of the form field "${name}" changed its /${changed}`);
    analysis.explain(kid, "form_filling");
  }
}

/**
 * formRule: the interactive form may gain signature fields (with their widgets and values), and
 * existing fields may get values and appearances, as pyHanko's SigFieldCreationRule,
 * SigFieldModificationRule and FormUpdatingRule; no field may be deleted or retyped.
 */
export const formRule: ModificationRule = { name: "form", apply: formRules };
