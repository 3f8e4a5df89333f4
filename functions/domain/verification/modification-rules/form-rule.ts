import { PdfArray, PdfDict, PdfNumber, PdfRef, PdfString, type PdfObject } from "@libpdf/core";
import { differingKey, same } from "#domain/pdf/objects.ts";
import { type Analysis, deref, dictAt, keyOf, SuspiciousChangeError, type ModificationRule, type View } from "#domain/verification/modification-rules/rule.ts";

const ACROFORM_EXEMPT = new Set(["Fields", "DR", "DA", "Q", "NeedAppearances"]);
const FIELD_ALWAYS_MODIFIABLE = new Set(["Ff", "Type"]);
const VALUE_UPDATE_KEYS = new Set([...FIELD_ALWAYS_MODIFIABLE, "AP", "AS", "V", "F", "DA", "Q"]);

interface FieldEntry {
  name: string;
  type: string | undefined;
  ref: PdfRef;
}

function listFields(
  view: View,
  fields: PdfObject | undefined,
  parent = "",
  inherited?: string,
  out = new Map<string, FieldEntry>(),
  depth = 0,
): Map<string, FieldEntry> {
  const array = deref(view, fields);
  if (!(array instanceof PdfArray) || depth > 32) return out;
  for (const item of array.toArray()) {
    if (!(item instanceof PdfRef)) continue;
    const field = view.resolve(item);
    if (!(field instanceof PdfDict)) continue;
    const title = field.get("T");
    if (!(title instanceof PdfString)) continue;
    const name = parent ? `${parent}.${title.asString()}` : title.asString();
    const type = field.getName("FT")?.value ?? inherited;
    out.set(name, { name, type, ref: item });
    listFields(view, field.get("Kids"), name, type, out, depth + 1);
  }
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
function appearanceUpdate(a: Analysis, oldField: PdfDict | undefined, newField: PdfDict): void {
  if (newField.get("AP") === undefined) return;
  a.refUpdate(oldField, newField, "AP", "form_filling");
  const ap = dictAt(a.neu, newField.get("AP"));
  if (!ap) throw new SuspiciousChangeError("an /AP entry is not a dictionary");
  const oldAp = oldField ? dictAt(a.old, oldField.get("AP")) : undefined;
  for (const key of ["N", "R", "D"]) {
    const value = ap.get(key);
    a.explainAll(a.newDependencies(value), "form_filling");
    const before = oldAp?.get(key);
    if (value instanceof PdfRef && same(value, before)) {
      a.explain(value, "form_filling");
      a.explainAll(a.newDependencies(a.neu.resolve(value) ?? undefined), "form_filling");
    }
  }
}

/** signatureValue explains the signature dictionary a field's /V points to. */
function signatureValue(a: Analysis, field: PdfDict, visible: boolean): void {
  const value = field.get("V");
  if (!(value instanceof PdfRef)) throw new SuspiciousChangeError("a signature field's value is not an indirect reference");
  const signature = a.neu.resolve(value);
  if (!(signature instanceof PdfDict)) throw new SuspiciousChangeError("a signature field's value is not a dictionary");
  const level = signature.getName("Type")?.value === "DocTimeStamp" && !visible ? "lta" : "form_filling";
  a.explain(value, level);
  const references = deref(a.neu, signature.get("Reference"));
  if (references instanceof PdfArray) {
    for (const reference of references.toArray()) {
      const params = dictAt(a.neu, reference)?.get("TransformParams");
      if (params instanceof PdfRef) a.explain(params, level);
    }
  }
}

/** formRules checks the interactive form: fields filled, signature fields added, nothing deleted. Records the new signature widgets. */
function formRules(a: Analysis): void {
  const { old, neu } = a;
  const widgets = a.signatureWidgets;
  if (neu.root.get("AcroForm") === undefined) {
    if (old.root.get("AcroForm") !== undefined) throw new SuspiciousChangeError("the interactive form was removed");
    return;
  }
  a.refUpdate(old.root, neu.root, "AcroForm", "lta");
  const oldForm = dictAt(old, old.root.get("AcroForm")) ?? new PdfDict();
  const newForm = dictAt(neu, neu.root.get("AcroForm"));
  if (!newForm) throw new SuspiciousChangeError("/AcroForm is not a dictionary");
  const key = differingKey(oldForm, newForm, ACROFORM_EXEMPT);
  if (key) throw new SuspiciousChangeError(`the form's /${key} changed`);
  a.refUpdate(oldForm, newForm, "Fields", "lta");
  if (newForm.get("DR") !== undefined) {
    a.refUpdate(oldForm, newForm, "DR", "form_filling");
    a.explainAll(a.newDependencies(newForm.get("DR")), "form_filling");
  }
  const before = listFields(old, oldForm.get("Fields"));
  const after = listFields(neu, newForm.get("Fields"));
  for (const name of before.keys()) if (!after.has(name)) throw new SuspiciousChangeError(`the form field "${name}" was deleted`);
  for (const [name, entry] of after) {
    const field = neu.resolve(entry.ref);
    if (!(field instanceof PdfDict)) continue;
    const previous = before.get(name);
    if (previous && previous.type !== entry.type) throw new SuspiciousChangeError(`the type of form field "${name}" changed`);
    if (!previous) {
      if (entry.type !== "Sig") throw new SuspiciousChangeError(`a form field other than a signature field ("${name}") was added`);
      const visible = fieldVisible(neu, field);
      if (visible && a.docMdp !== undefined) throw new SuspiciousChangeError(`a visible signature field ("${name}") was added after a certification`);
      const level = visible ? "form_filling" : "lta";
      if (a.isNew(entry.ref)) a.explain(entry.ref, level);
      for (const dep of ["AP", "Lock", "SV"]) a.explainAll(a.newDependencies(field.get(dep)), "form_filling");
      const kids = deref(neu, field.get("Kids"));
      if (kids instanceof PdfArray) {
        if (field.get("Kids") instanceof PdfRef && a.isNew(field.get("Kids") as PdfRef)) a.explain(field.get("Kids") as PdfRef, level);
        for (const kid of kids.toArray()) {
          const widget = dictAt(neu, kid);
          if (!(kid instanceof PdfRef) || !widget || widget.has("T")) continue;
          widgets.add(keyOf(kid));
          if (a.isNew(kid)) a.explain(kid, level);
          a.explainAll(a.newDependencies(widget.get("AP")), "form_filling");
        }
      } else widgets.add(keyOf(entry.ref));
      if (field.has("V")) signatureValue(a, field, visible);
      continue;
    }
    const oldField = old.resolve(previous.ref);
    if (!(oldField instanceof PdfDict)) continue;
    if (!same(previous.ref, entry.ref)) throw new SuspiciousChangeError(`the form field "${name}" was replaced by another object`);
    if (entry.type === "Sig") {
      const wasSigned = oldField.has("V");
      if (!wasSigned && field.has("V")) {
        const changed = differingKey(oldField, field, VALUE_UPDATE_KEYS);
        if (changed) throw new SuspiciousChangeError(`the signature field "${name}" changed its /${changed}`);
        a.explain(entry.ref, "lta");
        appearanceUpdate(a, oldField, field);
        signatureValue(a, field, fieldVisible(neu, field));
      } else if (!differingKey(oldField, field, FIELD_ALWAYS_MODIFIABLE)) a.explain(entry.ref, "lta");
      continue;
    }
    const changed = differingKey(oldField, field, VALUE_UPDATE_KEYS);
    if (changed) throw new SuspiciousChangeError(`the form field "${name}" changed its /${changed}`);
    a.explain(entry.ref, "form_filling");
    appearanceUpdate(a, oldField, field);
    if (!same(oldField.get("V"), field.get("V"))) a.explainAll(a.newDependencies(field.get("V")), "form_filling");
  }
}

/**
 * formRule: the interactive form may gain signature fields (with their widgets and values), and
 * existing fields may get values and appearances, as pyHanko's SigFieldCreationRule,
 * SigFieldModificationRule and FormUpdatingRule; no field may be deleted or retyped.
 */
export const formRule: ModificationRule = { name: "form", apply: formRules };
