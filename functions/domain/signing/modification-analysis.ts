import { PDF, PdfArray, PdfBool, PdfDict, PdfName, PdfNull, PdfNumber, PdfRef, PdfStream, PdfString, type PdfObject } from "@libpdf/core";
import { trailerOf } from "#domain/signing/libpdf-internals.ts";
import { readRevisions, type Revision } from "#domain/signing/pdf-revisions.ts";

/**
 * ModificationLevel classes what the updates after a signature changed, least to most:
 * none; lta (document info, XMP metadata, DSS, document timestamps, cross-reference and object
 * streams); form_filling (field values and their appearances, new signature fields and their
 * widgets); annotations (new annotations); other (anything else: pages, content, fonts, catalog
 * entries, deleted objects).
 */
export type ModificationLevel = "none" | "lta" | "form_filling" | "annotations" | "other";

const RANK: Record<ModificationLevel, number> = { none: 0, lta: 1, form_filling: 2, annotations: 3, other: 4 };
const higher = (a: ModificationLevel, b: ModificationLevel): ModificationLevel => (RANK[a] >= RANK[b] ? a : b);

/** ModificationReport is what the updates after one signature changed. */
export interface ModificationReport {
  level: ModificationLevel;
  /** Why the level is "other" (the first change that explains it). */
  problem?: string;
}

/** permitted tells whether a level is allowed after a signature: form filling at most, annotations under DocMDP P=3, LTA only under P=1. */
export function permitted(level: ModificationLevel, docMdp: number | undefined): boolean {
  if (level === "other") return false;
  if (docMdp === undefined) return RANK[level] <= RANK.form_filling;
  return RANK[level] <= docMdp;
}

// Catalog and form keys that may change (checked by their own rules), as pyHanko's defaults.
const ROOT_EXEMPT = new Set(["AcroForm", "DSS", "Extensions", "Metadata", "MarkInfo", "Version"]);
const ACROFORM_EXEMPT = new Set(["Fields", "DR", "DA", "Q", "NeedAppearances"]);
const FIELD_ALWAYS_MODIFIABLE = new Set(["Ff", "Type"]);
const VALUE_UPDATE_KEYS = new Set([...FIELD_ALWAYS_MODIFIABLE, "AP", "AS", "V", "F", "DA", "Q"]);

class Suspicious extends Error {}

const keyOf = (ref: PdfRef) => `${ref.objectNumber} ${ref.generation}`;

/** View is one revision of the file: its objects as they were then. */
interface View {
  revision: Revision;
  pdf: PDF;
  trailer: PdfDict;
  root: PdfDict;
}

function deref(view: View, value: PdfObject | undefined): PdfObject | undefined {
  return value instanceof PdfRef ? (view.pdf.getObject(value) ?? undefined) : value;
}

function dictAt(view: View, value: PdfObject | undefined): PdfDict | undefined {
  const object = deref(view, value);
  return object instanceof PdfDict ? object : undefined;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

/** same compares two values structurally; references are compared as references, not followed. */
function same(a: PdfObject | undefined, b: PdfObject | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (a instanceof PdfRef || b instanceof PdfRef)
    return a instanceof PdfRef && b instanceof PdfRef && a.objectNumber === b.objectNumber && a.generation === b.generation;
  if (a instanceof PdfNumber || a instanceof PdfBool || a instanceof PdfName)
    return a.constructor === b.constructor && (a as PdfNumber).value === (b as PdfNumber).value;
  if (a instanceof PdfNull) return b instanceof PdfNull;
  if (a instanceof PdfString) return b instanceof PdfString && bytesEqual(a.bytes, b.bytes);
  if (a instanceof PdfArray) {
    return b instanceof PdfArray && a.length === b.length && a.toArray().every((item, index) => same(item, b.at(index)));
  }
  if (a instanceof PdfDict) {
    if (!(b instanceof PdfDict) || a instanceof PdfStream !== b instanceof PdfStream) return false;
    if (a instanceof PdfStream && !bytesEqual(a.data, (b as PdfStream).data)) return false;
    return sameEntries(a, b, new Set());
  }
  return false;
}

function keysOf(dict: PdfDict, ignored: Set<string>): string[] {
  return [...dict.keys()]
    .map((key) => key.value)
    .filter((key) => !ignored.has(key) && !(key === "Length" && dict instanceof PdfStream))
    .sort();
}

function sameEntries(a: PdfDict, b: PdfDict, ignored: Set<string>): boolean {
  const keys = keysOf(a, ignored);
  const other = keysOf(b, ignored);
  return keys.length === other.length && keys.every((key, index) => key === other[index] && same(a.get(key), b.get(key)));
}

/** differingKey names the first key (ignoring some) whose value differs, or undefined. */
function differingKey(a: PdfDict, b: PdfDict, ignored: Set<string>): string | undefined {
  const keys = new Set([...keysOf(a, ignored), ...keysOf(b, ignored)]);
  for (const key of keys) if (!same(a.get(key), b.get(key))) return key;
  return undefined;
}

/**
 * Analysis collects, for one later revision, which written objects each rule explains and at
 * which level (an object explained at several levels counts at the lowest, as in pyHanko).
 */
class Analysis {
  readonly explained = new Map<string, ModificationLevel>();

  constructor(
    readonly old: View,
    readonly neu: View,
    readonly docMdp: number | undefined,
  ) {}

  isNew(ref: PdfRef): boolean {
    return !this.old.revision.inUse.has(keyOf(ref));
  }

  explain(ref: PdfRef | undefined, level: ModificationLevel): void {
    if (!ref) return;
    const key = keyOf(ref);
    const current = this.explained.get(key);
    if (!current || RANK[level] < RANK[current]) this.explained.set(key, level);
  }

  /** newDependencies lists the objects new since the signed revision reachable from a value (not entering older objects). */
  newDependencies(value: PdfObject | undefined, found = new Set<string>(), refs: PdfRef[] = []): PdfRef[] {
    if (value instanceof PdfRef) {
      const key = keyOf(value);
      if (found.has(key) || !this.isNew(value)) return refs;
      found.add(key);
      refs.push(value);
      this.newDependencies(this.neu.pdf.getObject(value) ?? undefined, found, refs);
    } else if (value instanceof PdfArray) {
      for (const item of value.toArray()) this.newDependencies(item, found, refs);
    } else if (value instanceof PdfDict) {
      for (const key of value.keys()) this.newDependencies(value.get(key), found, refs);
    }
    return refs;
  }

  explainAll(refs: PdfRef[], level: ModificationLevel): void {
    for (const ref of refs) this.explain(ref, level);
  }

  /** refUpdate explains a key whose value became (or stayed) a reference: allowed when it points to a new object or the same non-stream object. */
  refUpdate(oldDict: PdfDict | undefined, newDict: PdfDict, key: string, level: ModificationLevel): void {
    const before = oldDict?.get(key);
    const after = newDict.get(key);
    if (before !== undefined && after === undefined) throw new Suspicious(`/${key} was deleted`);
    if (!(after instanceof PdfRef)) return;
    if (before instanceof PdfRef && same(before, after)) {
      if (this.neu.pdf.getObject(after) instanceof PdfStream) return;
      this.explain(after, level);
    } else if (this.isNew(after)) this.explain(after, level);
    else throw new Suspicious(`/${key} now points to an older object (${keyOf(after)})`);
  }
}

function catalogRules(a: Analysis): void {
  const { old, neu } = a;
  const key = differingKey(old.root, neu.root, ROOT_EXEMPT);
  if (key) throw new Suspicious(`the document catalog's /${key} changed`);
  a.explain(neu.trailer.get("Root") as PdfRef | undefined, "lta");
  for (const name of ["Extensions", "MarkInfo", "Metadata"]) a.refUpdate(old.root, neu.root, name, "lta");
  const info = neu.trailer.get("Info");
  if (info instanceof PdfRef && (same(info, old.trailer.get("Info")) || a.isNew(info))) a.explain(info, "lta");
  const dss = neu.root.get("DSS");
  if (dss !== undefined) {
    a.refUpdate(old.root, neu.root, "DSS", "lta");
    a.explainAll(a.newDependencies(dss), "lta");
  }
  for (const key of neu.revision.written) {
    const [number, generation] = key.split(" ").map(Number) as [number, number];
    const object = neu.pdf.getObject(PdfRef.of(number, generation));
    const type = object instanceof PdfStream ? object.getName("Type")?.value : undefined;
    if ((type === "XRef" || type === "ObjStm") && a.isNew(PdfRef.of(number, generation))) a.explain(PdfRef.of(number, generation), "lta");
  }
}

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
    const field = view.pdf.getObject(item);
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
  if (!ap) throw new Suspicious("an /AP entry is not a dictionary");
  const oldAp = oldField ? dictAt(a.old, oldField.get("AP")) : undefined;
  for (const key of ["N", "R", "D"]) {
    const value = ap.get(key);
    a.explainAll(a.newDependencies(value), "form_filling");
    const before = oldAp?.get(key);
    if (value instanceof PdfRef && same(value, before)) {
      a.explain(value, "form_filling");
      a.explainAll(a.newDependencies(a.neu.pdf.getObject(value) ?? undefined), "form_filling");
    }
  }
}

/** signatureValue explains the signature dictionary a field's /V points to. */
function signatureValue(a: Analysis, field: PdfDict, visible: boolean): void {
  const value = field.get("V");
  if (!(value instanceof PdfRef)) throw new Suspicious("a signature field's value is not an indirect reference");
  const signature = a.neu.pdf.getObject(value);
  if (!(signature instanceof PdfDict)) throw new Suspicious("a signature field's value is not a dictionary");
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

/** formRules checks the interactive form: fields filled, signature fields added, nothing deleted. Returns the new signature widgets. */
function formRules(a: Analysis): Set<string> {
  const { old, neu } = a;
  const widgets = new Set<string>();
  if (neu.root.get("AcroForm") === undefined) {
    if (old.root.get("AcroForm") !== undefined) throw new Suspicious("the interactive form was removed");
    return widgets;
  }
  a.refUpdate(old.root, neu.root, "AcroForm", "lta");
  const oldForm = dictAt(old, old.root.get("AcroForm")) ?? new PdfDict();
  const newForm = dictAt(neu, neu.root.get("AcroForm"));
  if (!newForm) throw new Suspicious("/AcroForm is not a dictionary");
  const key = differingKey(oldForm, newForm, ACROFORM_EXEMPT);
  if (key) throw new Suspicious(`the form's /${key} changed`);
  a.refUpdate(oldForm, newForm, "Fields", "lta");
  if (newForm.get("DR") !== undefined) {
    a.refUpdate(oldForm, newForm, "DR", "form_filling");
    a.explainAll(a.newDependencies(newForm.get("DR")), "form_filling");
  }
  const before = listFields(old, oldForm.get("Fields"));
  const after = listFields(neu, newForm.get("Fields"));
  for (const name of before.keys()) if (!after.has(name)) throw new Suspicious(`the form field "${name}" was deleted`);
  for (const [name, entry] of after) {
    const field = neu.pdf.getObject(entry.ref);
    if (!(field instanceof PdfDict)) continue;
    const previous = before.get(name);
    if (previous && previous.type !== entry.type) throw new Suspicious(`the type of form field "${name}" changed`);
    if (!previous) {
      if (entry.type !== "Sig") throw new Suspicious(`a form field other than a signature field ("${name}") was added`);
      const visible = fieldVisible(neu, field);
      if (visible && a.docMdp !== undefined) throw new Suspicious(`a visible signature field ("${name}") was added after a certification`);
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
    const oldField = old.pdf.getObject(previous.ref);
    if (!(oldField instanceof PdfDict)) continue;
    if (!same(previous.ref, entry.ref)) throw new Suspicious(`the form field "${name}" was replaced by another object`);
    if (entry.type === "Sig") {
      const wasSigned = oldField.has("V");
      if (!wasSigned && field.has("V")) {
        const changed = differingKey(oldField, field, VALUE_UPDATE_KEYS);
        if (changed) throw new Suspicious(`the signature field "${name}" changed its /${changed}`);
        a.explain(entry.ref, "lta");
        appearanceUpdate(a, oldField, field);
        signatureValue(a, field, fieldVisible(neu, field));
      } else if (!differingKey(oldField, field, FIELD_ALWAYS_MODIFIABLE)) a.explain(entry.ref, "lta");
      continue;
    }
    const changed = differingKey(oldField, field, VALUE_UPDATE_KEYS);
    if (changed) throw new Suspicious(`the form field "${name}" changed its /${changed}`);
    a.explain(entry.ref, "form_filling");
    appearanceUpdate(a, oldField, field);
    if (!same(oldField.get("V"), field.get("V"))) a.explainAll(a.newDependencies(field.get("V")), "form_filling");
  }
  return widgets;
}

function annotationRefs(view: View, page: PdfDict): PdfRef[] {
  const annots = deref(view, page.get("Annots"));
  if (annots === undefined) return [];
  if (!(annots instanceof PdfArray)) throw new Suspicious("a page's /Annots is not an array");
  return annots.toArray().map((item) => {
    if (!(item instanceof PdfRef)) throw new Suspicious("a page's /Annots holds a direct annotation");
    return item;
  });
}

/**
 * pageRules walks the page trees of both revisions: the tree must keep its shape (no page added,
 * removed or moved); a page may only gain annotations: widgets of new signature fields (lta, as
 * pyHanko), or other new annotations (annotations level).
 */
function pageRules(a: Analysis, widgets: Set<string>): void {
  const walk = (oldNode: PdfRef, newNode: PdfRef, depth: number): void => {
    if (depth > 64) throw new Suspicious("the page tree is too deep");
    if (!same(oldNode, newNode)) throw new Suspicious("unexpected change to the page tree structure");
    const before = a.old.pdf.getObject(oldNode);
    const after = a.neu.pdf.getObject(newNode);
    if (!(before instanceof PdfDict) || !(after instanceof PdfDict)) throw new Suspicious("a page tree node is not a dictionary");
    if (before.getName("Type")?.value === "Pages") {
      const oldKids = deref(a.old, before.get("Kids"));
      const newKids = deref(a.neu, after.get("Kids"));
      if (!(oldKids instanceof PdfArray) || !(newKids instanceof PdfArray) || !same(oldKids, newKids))
        throw new Suspicious("unexpected change to the page tree structure");
      oldKids.toArray().forEach((kid, index) => {
        if (kid instanceof PdfRef) walk(kid, newKids.at(index) as PdfRef, depth + 1);
      });
      return;
    }
    const oldAnnots = annotationRefs(a.old, before).map(keyOf);
    const newAnnots = annotationRefs(a.neu, after);
    const added = newAnnots.filter((ref) => !oldAnnots.includes(keyOf(ref)));
    if (added.length === 0 && oldAnnots.length === newAnnots.length) return;
    if (oldAnnots.some((key) => !newAnnots.some((ref) => keyOf(ref) === key))) throw new Suspicious("annotations were deleted from a page");
    const changed = differingKey(before, after, new Set(["Annots"]));
    if (changed) throw new Suspicious(`a page's /${changed} changed`);
    const others = added.filter((ref) => !widgets.has(keyOf(ref)));
    const level: ModificationLevel = others.length > 0 ? "annotations" : "lta";
    for (const ref of others) {
      const annotation = a.neu.pdf.getObject(ref);
      if (!a.isNew(ref) || !(annotation instanceof PdfDict)) throw new Suspicious("an existing object was turned into an annotation");
      if (annotation.getName("Subtype")?.value === "Widget") throw new Suspicious("a widget of no new signature field was added to a page");
      a.explain(ref, "annotations");
      a.explainAll(a.newDependencies(annotation), "annotations");
    }
    a.explain(newNode, level);
    const annotsRef = after.get("Annots");
    if (annotsRef instanceof PdfRef && (same(annotsRef, before.get("Annots")) || a.isNew(annotsRef))) a.explain(annotsRef, level);
  };
  const oldPages = a.old.root.get("Pages");
  const newPages = a.neu.root.get("Pages");
  if (oldPages instanceof PdfRef && newPages instanceof PdfRef) walk(oldPages, newPages, 0);
}

/** orphans are new objects nothing older (or the trailer) leads to: harmless, cleared at lta. */
function orphanRules(a: Analysis): void {
  const reachable = new Set<string>();
  a.newDependencies(a.neu.trailer, reachable);
  for (const key of a.neu.revision.written) {
    const [number, generation] = key.split(" ").map(Number) as [number, number];
    const ref = PdfRef.of(number, generation);
    if (!a.isNew(ref)) a.newDependencies(a.neu.pdf.getObject(ref) ?? undefined, reachable);
  }
  for (const key of a.neu.revision.written) if (!reachable.has(key) && !a.old.revision.inUse.has(key)) a.explained.set(key, "lta");
}

function describe(view: View, key: string): string {
  const [number, generation] = key.split(" ").map(Number) as [number, number];
  const object = view.pdf.getObject(PdfRef.of(number, generation));
  const type = object instanceof PdfDict ? (object.getName("Type")?.value ?? object.getName("Subtype")?.value) : undefined;
  const kind = object instanceof PdfStream ? `a ${type ? `${type} ` : ""}stream` : type ? `a ${type} object` : "an object";
  return `object ${number} (${kind})`;
}

/** analyseRevision classes what one later revision changed relative to the signed one. */
function analyseRevision(old: View, neu: View, docMdp: number | undefined): ModificationReport {
  const a = new Analysis(old, neu, docMdp);
  try {
    const freed = [...neu.revision.freed].filter((key) => old.revision.inUse.has(key));
    if (freed.length > 0) throw new Suspicious(`${freed.length} object(s) from the signed revision were deleted`);
    orphanRules(a);
    catalogRules(a);
    const widgets = formRules(a);
    pageRules(a, widgets);
  } catch (error) {
    if (error instanceof Suspicious) return { level: "other", problem: error.message };
    throw error;
  }
  let level: ModificationLevel = "lta";
  const unexplained: string[] = [];
  for (const key of neu.revision.written) {
    const explained = a.explained.get(key);
    if (explained) {
      level = higher(level, explained);
      continue;
    }
    const [number, generation] = key.split(" ").map(Number) as [number, number];
    const ref = PdfRef.of(number, generation);
    if (old.revision.inUse.has(key) && same(old.pdf.getObject(ref) ?? undefined, neu.pdf.getObject(ref) ?? undefined)) continue;
    unexplained.push(key);
  }
  if (unexplained.length > 0) {
    const listed = unexplained
      .slice(0, 3)
      .map((key) => describe(neu, key))
      .join(", ");
    return { level: "other", problem: `unexplained changes: ${listed}${unexplained.length > 3 ? ` and ${unexplained.length - 3} more` : ""}` };
  }
  return { level };
}

/** RevisionHistory opens the revisions of one file on demand, each once. */
export class RevisionHistory {
  private readonly views = new Map<number, Promise<View>>();
  /** Analyses already made, by signed end and DocMDP permission (many fields may share one signature). */
  readonly analyses = new Map<string, Promise<ModificationReport>>();
  readonly revisions: Revision[];

  constructor(private readonly bytes: Buffer) {
    this.revisions = readRevisions(bytes);
  }

  /** revisionEndingAt finds the revision a signature covers: the one whose %%EOF ends where its byte range ends. */
  revisionEndingAt(offset: number): Revision | undefined {
    return this.revisions.find(
      (revision) => revision.end === offset || (revision.end > offset && /^[\s\0]*$/.test(this.bytes.subarray(offset, revision.end).toString("latin1"))),
    );
  }

  view(revision: Revision): Promise<View> {
    let view = this.views.get(revision.index);
    if (!view) {
      view = (async () => {
        const pdf = await PDF.load(this.bytes.subarray(0, revision.end));
        return { revision, pdf, trailer: trailerOf(pdf), root: pdf.getCatalog() };
      })();
      this.views.set(revision.index, view);
    }
    return view;
  }
}

/**
 * analyseModifications classes every incremental update after the revision a signature covers
 * (ending at `signedEnd`), each compared with the signed revision as pyHanko's difference
 * analysis does, and returns the highest level; "other" with the reason at the first update
 * that changes more than signatures, form values, annotations or LTA data.
 */
export function analyseModifications(history: RevisionHistory, signedEnd: number, docMdp: number | undefined): Promise<ModificationReport> {
  const key = `${signedEnd}:${docMdp}`;
  let analysis = history.analyses.get(key);
  if (!analysis) {
    // An update the parser cannot follow is not explained: it counts as "other", never as a crash.
    analysis = analyse(history, signedEnd, docMdp).catch((error: unknown) => ({
      level: "other" as const,
      problem: `an update after the signature could not be read (${error instanceof Error ? error.message : "unreadable"})`,
    }));
    history.analyses.set(key, analysis);
  }
  return analysis;
}

async function analyse(history: RevisionHistory, signedEnd: number, docMdp: number | undefined): Promise<ModificationReport> {
  const signed = history.revisionEndingAt(signedEnd);
  if (!signed) return { level: "other", problem: "the signature does not cover a whole revision of the file" };
  let level: ModificationLevel = "none";
  const old = await history.view(signed);
  for (const revision of history.revisions.slice(signed.index + 1)) {
    const report = analyseRevision(old, await history.view(revision), docMdp);
    if (report.level === "other") return { level: "other", problem: `update ${revision.index}: ${report.problem}` };
    level = higher(level, report.level);
  }
  return { level };
}
