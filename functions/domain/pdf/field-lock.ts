// Field locks (FieldMDP, ISO 32000-1 12.7.4.5 table 233 and 12.8.2.4; ISO 32000-2 adds /P): a
// signature field's /Lock names the fields its signature locks (all, the listed ones, or all but
// the listed ones); the signature records it as a FieldMDP transform in its /Reference, and after
// it any change to a locked field invalidates that signature. A lock's /P limits every change
// after the signature as a DocMDP permission does.
import { PdfArray, type PdfDict, PdfName, PdfNumber, type PdfObject, PdfString } from "@libpdf/core";
import type { FormField, PdfForm } from "#domain/pdf/acroform.ts";
import type { DocMdpPermission } from "#domain/pdf/docmdp.ts";
import { deref, dictAt, type PdfView } from "#domain/pdf/pdf-file.ts";

/** LockAction is a lock's /Action: every field, only the listed ones, or all but the listed ones. */
export type LockAction = "all" | "include" | "exclude";

/** FieldLock is one lock: a /Lock dictionary or a FieldMDP transform's parameters. */
export interface FieldLock {
  action: LockAction;
  /** Fully qualified field names (/Fields); empty for "all". */
  fields: string[];
  /** /P (ISO 32000-2): the DocMDP permission in force after the signature, when the lock sets one. */
  permission?: DocMdpPermission | undefined;
}

/** SignatureLock is a signed field whose signature locks fields, or whose field's lock sets a DocMDP permission (/P). */
export interface SignatureLock {
  /** The signed field's fully qualified name. */
  field: string;
  /** The fields the signature locks (its FieldMDP transform); absent when it records none. */
  lock?: FieldLock | undefined;
  /** The DocMDP permission in force after the signature (/P of the transform, else of the field's /Lock). */
  permission?: DocMdpPermission | undefined;
}

const ACTIONS: Record<string, LockAction> = { All: "all", Include: "include", Exclude: "exclude" };

function permissionOf(view: PdfView, value: PdfObject | undefined): DocMdpPermission | undefined {
  const p = deref(view, value);
  return p instanceof PdfNumber && (p.value === 1 || p.value === 2 || p.value === 3) ? p.value : undefined;
}

/**
 * readLock reads a /Lock dictionary or FieldMDP /TransformParams: undefined when it is not one
 * (no known /Action). An /Include or /Exclude without a readable /Fields array locks every field:
 * a lock that cannot be read is taken at its strictest.
 */
export function readLock(view: PdfView, value: PdfObject | undefined): FieldLock | undefined {
  const dict = dictAt(view, value);
  const action = ACTIONS[dict?.getName("Action")?.value ?? ""];
  if (!dict || !action) return undefined;
  const list = deref(view, dict.get("Fields"));
  const readable = list instanceof PdfArray;
  const fields = readable
    ? list.toArray().flatMap((item) => (deref(view, item) instanceof PdfString ? [(deref(view, item) as PdfString).asString()] : []))
    : [];
  const permission = permissionOf(view, dict.get("P"));
  return { action: action !== "all" && !readable ? "all" : action, fields: action === "all" ? [] : fields, ...(permission ? { permission } : {}) };
}

/**
 * isLocked tells whether a lock covers a field: a listed name covers that field and every field
 * below it ("a" covers "a.b", not "ab"; pyHanko 0.20.1 compares bare prefixes, so it also locks "ab").
 */
export function isLocked(lock: FieldLock, name: string): boolean {
  if (lock.action === "all") return true;
  const listed = lock.fields.some((item) => name === item || name.startsWith(`${item}.`));
  return lock.action === "include" ? listed : !listed;
}

/** fieldMdpParams finds the FieldMDP transform in a signature dictionary's /Reference (its /TransformParams). */
function fieldMdpParams(view: PdfView, signature: PdfDict): PdfObject | undefined {
  const references = deref(view, signature.get("Reference"));
  if (!(references instanceof PdfArray)) return undefined;
  for (const item of references.toArray()) {
    const reference = dictAt(view, item);
    if (reference?.getName("TransformMethod")?.value === "FieldMDP") return reference.get("TransformParams");
  }
  return undefined;
}

/**
 * signatureLock is what a signed field's signature locks: the fields of the FieldMDP transform in
 * its own /Reference (inside the signed bytes, as pyHanko reads it; a field's /Lock never recorded
 * by its signer locks no field), and the DocMDP permission /P of that transform or else of the
 * field's /Lock (pyHanko reads the field's, Acrobat writes both). Undefined when neither is there.
 */
export function signatureLock(view: PdfView, field: FormField): SignatureLock | undefined {
  if (!field.signature) return undefined;
  const lock = readLock(view, fieldMdpParams(view, field.signature.dict));
  const permission = lock?.permission ?? permissionOf(view, dictAt(view, field.dict.get("Lock"))?.get("P"));
  if (!lock && !permission) return undefined;
  return { field: field.name, ...(lock ? { lock } : {}), ...(permission ? { permission } : {}) };
}

/** signatureLocks lists the signed fields of a form whose signatures lock fields or set a permission. */
export function signatureLocks(view: PdfView, form: PdfForm): SignatureLock[] {
  return form.fields.flatMap((field) => signatureLock(view, field) ?? []);
}

/** lockingSignatures names the signatures whose locks cover a field. */
export function lockingSignatures(locks: readonly SignatureLock[], name: string): string[] {
  return locks.filter((item) => item.lock && isLocked(item.lock, name)).map((item) => item.field);
}

/** lockPermission is the strictest /P the locks set (undefined when none sets one). */
export function lockPermission(locks: readonly SignatureLock[]): DocMdpPermission | undefined {
  const permissions = locks.flatMap((item) => item.permission ?? []);
  return permissions.length > 0 ? (Math.min(...permissions) as DocMdpPermission) : undefined;
}

/** lockEntries are a lock's /Action, /Fields (not for /All) and /P (when it has one). */
function lockEntries(lock: FieldLock): Record<string, PdfObject> {
  return {
    Action: PdfName.of(lock.action === "all" ? "All" : lock.action === "include" ? "Include" : "Exclude"),
    ...(lock.action === "all" ? {} : { Fields: new PdfArray(lock.fields.map((name) => PdfString.fromString(name))) }),
    ...(lock.permission ? { P: PdfNumber.of(lock.permission) } : {}),
  };
}

/** fieldMdpTransformParams writes a lock as FieldMDP /TransformParams (/V /1.2, with /P when the lock has one, as Acrobat and pyHanko write it). */
export function fieldMdpTransformParams(lock: FieldLock): Record<string, PdfObject> {
  return { Type: PdfName.of("TransformParams"), ...lockEntries(lock), V: PdfName.of("1.2") };
}

/** sigFieldLock writes a lock as a signature field's /Lock dictionary (/Type /SigFieldLock). */
export function sigFieldLock(lock: FieldLock): Record<string, PdfObject> {
  return { Type: PdfName.of("SigFieldLock"), ...lockEntries(lock) };
}

/** strictestPermission is the stricter of two DocMDP permissions, either possibly absent (ISO 32000-2: a lock's /P can deny, never add). */
export function strictestPermission(first: number | undefined, second: number | undefined): number | undefined {
  if (first === undefined) return second;
  return second === undefined ? first : Math.min(first, second);
}
