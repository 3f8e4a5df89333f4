import { PdfArray, PdfDict, PdfRef, type PdfObject } from "@libpdf/core";
import { type FormField, readForm } from "#domain/pdf/acroform.ts";
import { isLocked } from "#domain/pdf/field-lock.ts";
import { differingKey, same } from "#domain/pdf/objects.ts";
import { type Analysis, keyOf, type ModificationRule, SuspiciousChangeError } from "#domain/verification/modification-rules/rule.ts";

// What a locked field may still change: its flags and /Type (pyHanko's FORMFIELD_ALWAYS_MODIFIABLE).
const ALWAYS_MODIFIABLE = new Set(["Ff", "Type"]);
// Entries that lead out of a field to its page or parent: followed, they would reach the whole document.
const OUTWARD = new Set(["P", "Parent"]);
// Deeper than an appearance's resources nest; bounds the walk.
const MAX_DEPTH = 32;

/** changedBelow tells whether an object a value reaches (not through /P or /Parent) resolves differently than when signed. */
function changedBelow(analysis: Analysis, value: PdfObject | undefined, seen: Set<string>, depth: number): boolean {
  if (depth > MAX_DEPTH) throw new SuspiciousChangeError("a locked field's objects nest too deeply");
  if (value instanceof PdfRef) {
    const key = keyOf(value);
    if (seen.has(key)) return false;
    seen.add(key);
    const now = analysis.current.resolve(value);
    if (!same(analysis.signed.resolve(value), now)) return true;
    return changedBelow(analysis, now, seen, depth + 1);
  }
  if (value instanceof PdfArray) return value.toArray().some((item) => changedBelow(analysis, item, seen, depth + 1));
  if (value instanceof PdfDict)
    return [...value.keys()].some((key) => !OUTWARD.has(key.value) && changedBelow(analysis, value.get(key.value), seen, depth + 1));
  return false;
}

/** fieldChange names what changed in a locked field since the signed revision (its dictionary, a widget, an appearance), or undefined. */
function fieldChange(analysis: Analysis, before: FormField, after: FormField): string | undefined {
  const key = differingKey(before.dict, after.dict, ALWAYS_MODIFIABLE);
  if (key) return `/${key}`;
  const seen = new Set<string>(after.ref ? [keyOf(after.ref)] : []);
  const entries = (dict: PdfDict) => [...dict.keys()].filter((name) => !OUTWARD.has(name.value) && !ALWAYS_MODIFIABLE.has(name.value));
  if (entries(after.dict).some((name) => changedBelow(analysis, after.dict.get(name.value), seen, 0))) return "value or appearance";
  for (const widget of after.widgets) if (widget.ref && changedBelow(analysis, widget.ref, seen, 0)) return "widget";
  return undefined;
}

/** lockedChange names the change the lock forbids on one field of the current revision, or undefined. */
function lockedChange(analysis: Analysis, before: FormField | undefined, after: FormField): string | undefined {
  const timestamp = after.signature?.dict.getName("Type")?.value === "DocTimeStamp";
  const visible = after.widgets.some((widget) => widget.visible);
  if (!before) {
    // A new field: only an invisible signature field, empty or holding a document timestamp (pyHanko's valid_when_locked).
    if (after.type !== "signature") return undefined; // the form rule refuses any other new field
    return visible ? "a new visible signature field" : after.signed && !timestamp ? "a new signature" : undefined;
  }
  // An invisible document timestamp in an empty signature field is validation data, not a change of the form.
  if (!before.signed && after.signed && timestamp && !visible) return undefined;
  const change = fieldChange(analysis, before, after);
  return change && `its ${change}`;
}

/**
 * fieldLockRule: after a signature whose /Reference holds a FieldMDP transform (pyHanko's
 * FieldMDPRule with the signature's FieldMDPSpec), no field the lock covers may change beyond its
 * flags: not its value, appearance or widgets, and no new visible field or new signature under a
 * locked name. It explains nothing itself (the form rule does); it only refuses.
 */
export const fieldLockRule: ModificationRule = {
  name: "field-lock",
  apply(analysis: Analysis): void {
    const { lock } = analysis;
    if (!lock) return;
    const before = new Map(readForm(analysis.signed).fields.map((field) => [field.name, field]));
    for (const field of readForm(analysis.current).fields) {
      if (!isLocked(lock, field.name)) continue;
      const change = lockedChange(analysis, before.get(field.name), field);
      if (change) throw new SuspiciousChangeError(`the form field "${field.name}" is locked by the signature (FieldMDP), but ${change} changed`);
    }
  },
};
