import { PdfArray, PdfDict, PdfRef } from "@libpdf/core";
import { same, differingKey } from "#domain/pdf/objects.ts";
import {
  deref,
  keyOf,
  SuspiciousChangeError,
  type Analysis,
  type ModificationLevel,
  type ModificationRule,
  type View,
} from "#domain/verification/modification-rules/rule.ts";

function annotationRefs(view: View, page: PdfDict): PdfRef[] {
  const annots = deref(view, page.get("Annots"));
  if (annots === undefined) return [];
  if (!(annots instanceof PdfArray)) throw new SuspiciousChangeError("a page's /Annots is not an array");
  return annots.toArray().map((item) => {
    if (!(item instanceof PdfRef)) throw new SuspiciousChangeError("a page's /Annots holds a direct annotation");
    return item;
  });
}

/**
 * pageRules walks the page trees of both revisions: the tree must keep its shape (no page added,
 * removed or moved); a page may only gain annotations: widgets of new signature fields (lta, as
 * pyHanko), or other new annotations (annotations level).
 */
function pageRules(a: Analysis): void {
  const widgets = a.signatureWidgets;
  const walk = (oldNode: PdfRef, newNode: PdfRef, depth: number): void => {
    if (depth > 64) throw new SuspiciousChangeError("the page tree is too deep");
    if (!same(oldNode, newNode)) throw new SuspiciousChangeError("unexpected change to the page tree structure");
    const before = a.old.resolve(oldNode);
    const after = a.neu.resolve(newNode);
    if (!(before instanceof PdfDict) || !(after instanceof PdfDict)) throw new SuspiciousChangeError("a page tree node is not a dictionary");
    if (before.getName("Type")?.value === "Pages") {
      const oldKids = deref(a.old, before.get("Kids"));
      const newKids = deref(a.neu, after.get("Kids"));
      if (!(oldKids instanceof PdfArray) || !(newKids instanceof PdfArray) || !same(oldKids, newKids))
        throw new SuspiciousChangeError("unexpected change to the page tree structure");
      oldKids.toArray().forEach((kid, index) => {
        if (kid instanceof PdfRef) walk(kid, newKids.at(index) as PdfRef, depth + 1);
      });
      return;
    }
    const oldAnnots = annotationRefs(a.old, before).map(keyOf);
    const newAnnots = annotationRefs(a.neu, after);
    const added = newAnnots.filter((ref) => !oldAnnots.includes(keyOf(ref)));
    if (added.length === 0 && oldAnnots.length === newAnnots.length) return;
    if (oldAnnots.some((key) => !newAnnots.some((ref) => keyOf(ref) === key))) throw new SuspiciousChangeError("annotations were deleted from a page");
    const changed = differingKey(before, after, new Set(["Annots"]));
    if (changed) throw new SuspiciousChangeError(`a page's /${changed} changed`);
    const others = added.filter((ref) => !widgets.has(keyOf(ref)));
    const level: ModificationLevel = others.length > 0 ? "annotations" : "lta";
    for (const ref of others) {
      const annotation = a.neu.resolve(ref);
      if (!a.isNew(ref) || !(annotation instanceof PdfDict)) throw new SuspiciousChangeError("an existing object was turned into an annotation");
      if (annotation.getName("Subtype")?.value === "Widget") throw new SuspiciousChangeError("a widget of no new signature field was added to a page");
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

/** pageRule: the page tree keeps its shape; pages only gain annotations (see pageRules). */
export const pageRule: ModificationRule = { name: "pages", apply: pageRules };
