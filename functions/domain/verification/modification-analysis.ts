import { PdfArray, PdfDict, PdfRef, PdfStream, type PdfObject } from "@libpdf/core";
import { SignetError } from "#domain/shared/errors.ts";
import { same } from "#domain/pdf/objects.ts";
import type { FieldLock } from "#domain/pdf/field-lock.ts";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
import { type Revision, RevisionError } from "#domain/pdf/revisions.ts";
import type { VerifyBudget } from "#domain/pdf/verify-limits.ts";
import { catalogRule } from "#domain/verification/modification-rules/catalog-rule.ts";
import { dssRule } from "#domain/verification/modification-rules/dss-rule.ts";
import { fieldLockRule } from "#domain/verification/modification-rules/field-lock-rule.ts";
import { formRule } from "#domain/verification/modification-rules/form-rule.ts";
import { pageRule } from "#domain/verification/modification-rules/page-rule.ts";
import {
  Analysis,
  higher,
  keyOf,
  RANK,
  SuspiciousChangeError,
  type ModificationLevel,
  type ModificationRule,
  type View,
} from "#domain/verification/modification-rules/rule.ts";

export type { ModificationLevel } from "#domain/verification/modification-rules/rule.ts";

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

/** RULES are the permitted kinds of change, each one rule (pyHanko's diff_analysis whitelist), one file each under modification-rules/. */
const RULES: ModificationRule[] = [catalogRule, dssRule, formRule, pageRule, fieldLockRule];

/** Graph is what a reader of one revision reaches from its trailer: each object once, with its references. */
interface Graph {
  /** Reached objects, by "num gen", with the references their value holds. */
  reached: Map<string, { ref: PdfRef; children: PdfRef[] }>;
}

function referencesIn(value: PdfObject | undefined, out: PdfRef[], depth = 0): PdfRef[] {
  if (depth > 64) throw new SuspiciousChangeError("objects nested too deeply");
  if (value instanceof PdfRef) out.push(value);
  else if (value instanceof PdfArray) for (const item of value.toArray()) referencesIn(item, out, depth + 1);
  else if (value instanceof PdfDict) for (const key of value.keys()) referencesIn(value.get(key), out, depth + 1);
  return out;
}

/** reachable walks a view from its trailer (skipping the trailer keys and catalog entries named) with an explicit stack. */
function reachable(view: View, budget: VerifyBudget, skipRoot: Set<string> = new Set(), skipTrailer: Set<string> = new Set()): Graph {
  const reached: Graph["reached"] = new Map();
  const stack: PdfRef[] = [];
  for (const key of view.trailer.keys()) if (!skipTrailer.has(key.value)) referencesIn(view.trailer.get(key.value), stack);
  const rootRef = view.trailer.get("Root");
  while (stack.length > 0) {
    budget.check();
    const ref = stack.pop()!;
    const key = keyOf(ref);
    if (reached.has(key)) continue;
    let value = view.resolve(ref);
    if (skipRoot.size > 0 && rootRef instanceof PdfRef && same(ref, rootRef) && value instanceof PdfDict) {
      const catalog = value;
      value = new PdfDict(
        [...catalog.keys()].filter((name) => !skipRoot.has(name.value)).map((name) => [name, catalog.get(name.value)!] as [typeof name, PdfObject]),
      );
    }
    const children = referencesIn(value, []);
    reached.set(key, { ref, children });
    for (const child of children) stack.push(child);
  }
  return { reached };
}

function describe(view: View, ref: PdfRef): string {
  const object = view.resolve(ref);
  if (object === undefined) return `object ${ref.objectNumber} (deleted)`;
  const type = object instanceof PdfDict ? (object.getName("Type")?.value ?? object.getName("Subtype")?.value) : undefined;
  const kind = object instanceof PdfStream ? `a ${type ? `${type} ` : ""}stream` : type ? `a ${type} object` : "an object";
  return `object ${ref.objectNumber} (${kind})`;
}

/** RevisionHistory is one file's revisions (its PdfFile, the one parse) and what its latest revision reaches. */
export class RevisionHistory {
  /** Analyses already made, by signed end and DocMDP permission (many fields may share one signature). */
  readonly analyses = new Map<string, Promise<ModificationReport>>();
  private latest?: { view: View; graph: Graph; outsideLta: Graph };

  constructor(readonly file: PdfFile) {}

  get revisions(): Revision[] {
    return this.file.revisions;
  }

  /** revisionEndingAt finds the revision a signature covers: the one whose %%EOF ends where its byte range ends. */
  revisionEndingAt(offset: number): Revision | undefined {
    return this.revisions.find(
      (revision) => revision.end === offset || (revision.end > offset && /^[\s\0]*$/.test(this.file.bytes.subarray(offset, revision.end).toString("latin1"))),
    );
  }

  /** view is a revision as its readers resolve it; one without a catalog is a change no rule explains. */
  view(revision: Revision): View {
    try {
      return this.file.view(revision.index);
    } catch (error) {
      if (error instanceof RevisionError) throw new SuspiciousChangeError(error.message);
      throw error;
    }
  }

  /** latestGraph is the newest revision and what its readers reach (all of it, and all but the DSS, metadata and info). */
  latestGraph(): { view: View; graph: Graph; outsideLta: Graph } {
    if (!this.latest) {
      const view = this.view(this.revisions.at(-1)!);
      const graph = reachable(view, this.file.budget);
      const outsideLta = reachable(view, this.file.budget, new Set(["DSS", "Metadata"]), new Set(["Info"]));
      this.latest = { view, graph, outsideLta };
    }
    return this.latest;
  }
}

/**
 * analyseModifications classes what the file as readers now see changed against the revision a
 * signature covers (ending at `signedEnd`), as pyHanko's difference analysis does: every object a
 * reader of the latest revision reaches, through unchanged objects too, that resolves differently
 * than in the signed revision must be explained by a rule; a reference the signed revision held
 * unsatisfied that an update now satisfies is a change; and any update after the signature that
 * readers could read differently (see pdf/revisions.ts) makes it "other". Limits throw (422).
 */
export function analyseModifications(
  history: RevisionHistory,
  signedEnd: number,
  docMdp: number | undefined,
  lock?: FieldLock | undefined,
): Promise<ModificationReport> {
  const key = `${signedEnd}:${docMdp}:${lock ? JSON.stringify(lock) : ""}`;
  let analysis = history.analyses.get(key);
  if (!analysis) {
    analysis = (async () => {
      try {
        return analyse(history, signedEnd, docMdp, lock);
      } catch (error) {
        // A limit is the caller's answer (422); an update the parser cannot follow is "other", never a crash.
        if (error instanceof SignetError) throw error;
        if (error instanceof SuspiciousChangeError) return { level: "other" as const, problem: error.message };
        return {
          level: "other" as const,
          problem: `an update after the signature could not be read (${error instanceof Error ? error.message : "unreadable"})`,
        };
      }
    })();
    history.analyses.set(key, analysis);
  }
  return analysis;
}

/** updateProblem is the first reason readers could disagree about an update after the signed revision, if any. */
function updateProblem(history: RevisionHistory, later: Revision[]): string | undefined {
  for (const revision of later) if (revision.problems.length > 0) return revision.problems[0]!;
  return history.file.trailingProblem;
}

/** deletedObject names an object in use when signed that a later update frees (deleted, whether or not still used). */
function deletedObject(history: RevisionHistory, defined: Set<number>, signedRevision: Revision, current: View): string | undefined {
  for (const number of defined) {
    const before = history.file.entryAt(number, signedRevision.index);
    const after = history.file.entryAt(number, current.index);
    if (before && before.type !== "free" && after?.type === "free") return `object ${number} from the signed revision was deleted`;
  }
  return undefined;
}

/**
 * differingObjects lists what a reader of the latest revision reaches and resolves differently than
 * the signer's reader, or names a dangling reference of the signed revision an update satisfies.
 */
function differingObjects(history: RevisionHistory, defined: Set<number>, signed: View, current: View, graph: Graph): PdfRef[] | ModificationReport {
  const budget = history.file.budget;
  const changedCache = new Map<string, boolean>();
  const changed = (ref: PdfRef): boolean => {
    if (!defined.has(ref.objectNumber)) return false;
    const key = keyOf(ref);
    let result = changedCache.get(key);
    if (result === undefined) {
      budget.check();
      result = !same(signed.resolve(ref), current.resolve(ref));
      changedCache.set(key, result);
    }
    return result;
  };
  const differing: PdfRef[] = [];
  for (const { ref, children } of graph.reached.values()) {
    if (changed(ref)) {
      differing.push(ref);
      continue;
    }
    // An unchanged object of the signed revision whose reference was dangling then and leads somewhere now.
    if (signed.resolve(ref) === undefined) continue;
    for (const child of children) {
      if (defined.has(child.objectNumber) && signed.resolve(child) === undefined && current.resolve(child) !== undefined) {
        return {
          level: "other",
          problem: `${describe(current, child)} is new, but ${describe(signed, ref)} of the signed revision already referred to it (a dangling reference the update satisfies)`,
        };
      }
    }
  }
  return differing;
}

/**
 * ModificationPolicy composes the rules into a verdict (pyHanko's DiffPolicy): given the objects
 * that differ, the level the rules explain them at, or "other" naming what no rule explains.
 */
interface ModificationPolicy {
  review(analysis: Analysis, differing: PdfRef[], outsideLta: Graph): ModificationReport;
}

/** standardPolicy applies every rule, then requires each differing object explained (pyHanko's StandardDiffPolicy). */
const standardPolicy: ModificationPolicy = {
  review(analysis, differing, outsideLta) {
    try {
      for (const rule of RULES) rule.apply(analysis);
    } catch (error) {
      if (error instanceof SuspiciousChangeError) return { level: "other", problem: error.message };
      throw error;
    }
    let level: ModificationLevel = "lta";
    const unexplained: PdfRef[] = [];
    for (const ref of differing) {
      const key = keyOf(ref);
      const explained = analysis.explained.get(key);
      if (!explained) {
        unexplained.push(ref);
        continue;
      }
      if (analysis.ltaOnly.has(key) && explained === "lta" && outsideLta.reached.has(key)) {
        return { level: "other", problem: `${describe(analysis.current, ref)} changed as validation data or metadata, but the document uses it elsewhere too` };
      }
      level = higher(level, explained);
    }
    if (unexplained.length === 0) return { level };
    const listed = unexplained
      .slice(0, 3)
      .map((ref) => describe(analysis.current, ref))
      .join(", ");
    return { level: "other", problem: `unexplained changes: ${listed}${unexplained.length > 3 ? ` and ${unexplained.length - 3} more` : ""}` };
  },
};

function analyse(history: RevisionHistory, signedEnd: number, docMdp: number | undefined, lock: FieldLock | undefined): ModificationReport {
  const signedRevision = history.revisionEndingAt(signedEnd);
  if (!signedRevision) return { level: "other", problem: "the signature does not cover a whole revision of the file" };
  const later = history.revisions.slice(signedRevision.index + 1);
  const problem = updateProblem(history, later);
  if (problem) return { level: "other", problem };
  if (later.length === 0) return { level: "none" };
  const signed = history.view(signedRevision);
  const { view: current, graph, outsideLta } = history.latestGraph();
  const defined = history.file.definedAfter(signedRevision.index);
  const deleted = deletedObject(history, defined, signedRevision, current);
  if (deleted) return { level: "other", problem: deleted };
  const differing = differingObjects(history, defined, signed, current, graph);
  if (!Array.isArray(differing)) return differing;
  if (differing.length === 0) return { level: "lta" };
  return standardPolicy.review(new Analysis(signed, current, docMdp, lock), differing, outsideLta);
}
