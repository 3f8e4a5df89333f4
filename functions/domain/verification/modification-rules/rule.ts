import { PdfArray, PdfDict, PdfRef, PdfStream, type PdfObject } from "@libpdf/core";
import type { FieldLock } from "#domain/pdf/field-lock.ts";
import { same } from "#domain/pdf/objects.ts";
import { deref, dictAt, type PdfView } from "#domain/pdf/pdf-file.ts";

/**
 * ModificationLevel classes what the updates after a signature changed, least to most:
 * none; lta (document info, XMP metadata, DSS, document timestamps); form_filling (field values
 * and their appearances, new signature fields and their widgets); annotations (new annotations);
 * other (anything else: pages, content, fonts, catalog entries, deleted objects).
 */
export type ModificationLevel = "none" | "lta" | "form_filling" | "annotations" | "other";

/** RANK orders the levels. */
export const RANK: Record<ModificationLevel, number> = { none: 0, lta: 1, form_filling: 2, annotations: 3, other: 4 };

/** higher is the more permissive-demanding of two levels. */
export const higher = (first: ModificationLevel, second: ModificationLevel): ModificationLevel => (RANK[first] >= RANK[second] ? first : second);

/** SuspiciousChangeError is a rule's refusal: a change no rule may explain, with what it is. */
export class SuspiciousChangeError extends Error {}

/** keyOf names a reference "num gen". */
export const keyOf = (ref: PdfRef) => `${ref.objectNumber} ${ref.generation}`;

/** View is one revision of the file as its readers resolve it (a PdfFile view). */
export type View = PdfView;

export { deref, dictAt };

/**
 * Analysis is what the rules see for one signature: the signed revision (`signed`), the file as readers
 * now see it (`current`), and the objects whose resolution differs between the two and that a reader of
 * the new revision reaches. Rules explain those objects at a level (an object explained at several
 * levels counts at the lowest, as in pyHanko) or throw SuspiciousChangeError.
 */
export class Analysis {
  readonly explained = new Map<string, ModificationLevel>();
  /** Objects explained only because they hang under validation-data or metadata entries (they must not be used elsewhere). */
  readonly ltaOnly = new Set<string>();
  /** Widgets of new signature fields (set by the form rule, read by the page rule). */
  readonly signatureWidgets = new Set<string>();

  constructor(
    readonly signed: View,
    readonly current: View,
    readonly docMdp: number | undefined,
    /** The signature's field lock (its FieldMDP transform), when it has one. */
    readonly lock?: FieldLock | undefined,
  ) {}

  isNew(ref: PdfRef): boolean {
    return this.signed.resolve(ref) === undefined;
  }

  explain(ref: PdfRef | undefined, level: ModificationLevel): void {
    if (!ref) return;
    const key = keyOf(ref);
    const current = this.explained.get(key);
    if (!current || RANK[level] < RANK[current]) this.explained.set(key, level);
  }

  /** newDependencies lists the objects new since the signed revision reachable from a value (not entering older objects). */
  newDependencies(value: PdfObject | undefined, found = new Set<string>(), refs: PdfRef[] = [], depth = 0): PdfRef[] {
    if (depth > 64) throw new SuspiciousChangeError("new objects nested too deeply");
    if (value instanceof PdfRef) {
      const key = keyOf(value);
      if (found.has(key) || !this.isNew(value)) return refs;
      found.add(key);
      refs.push(value);
      this.newDependencies(this.current.resolve(value), found, refs, depth + 1);
    } else if (value instanceof PdfArray) {
      for (const item of value.toArray()) this.newDependencies(item, found, refs, depth + 1);
    } else if (value instanceof PdfDict) {
      for (const key of value.keys()) this.newDependencies(value.get(key), found, refs, depth + 1);
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
    if (before !== undefined && after === undefined) throw new SuspiciousChangeError(`/${key} was deleted`);
    if (!(after instanceof PdfRef)) return;
    if (before instanceof PdfRef && same(before, after)) {
      if (this.current.resolve(after) instanceof PdfStream) return;
      this.explain(after, level);
    } else if (this.isNew(after)) this.explain(after, level);
    else throw new SuspiciousChangeError(`/${key} now points to an older object (${keyOf(after)})`);
  }
}

/**
 * ModificationRule is one kind of permitted change (pyHanko's WhitelistRule): it explains the
 * changed objects it permits, at a level, and throws SuspiciousChangeError for what it refuses.
 */
export interface ModificationRule {
  name: string;
  apply(analysis: Analysis): void;
}
