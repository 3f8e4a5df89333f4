import { PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfString, type PDF, type PdfObject } from "@libpdf/core";
import { type ObjectCopier, textOfName } from "#domain/pdf-tools/copier.ts";

/**
 * Outlines (bookmarks) and named destinations of the inputs, carried into the output: a
 * destination pointing at a page left out is dropped, so is a bookmark without a target and
 * without kept children; the rest point at the pages' copies. Walks are bounded (loops in /Next,
 * depth, count) because the outline is the input's, not ours.
 */

/** OutlineItem is one bookmark as the output will hold it. */
export interface OutlineItem {
  title: string;
  /** The destination (an explicit array on the output's pages, or a name), or an action dictionary (URI). */
  dest?: PdfObject;
  action?: PdfObject;
  children: OutlineItem[];
}

// More bookmarks than real documents carry; beyond it the rest is left out.
const MAX_ITEMS = 10_000;
const MAX_DEPTH = 32;
// Entries of one name tree: beyond it the rest is left out.
const MAX_NAMES = 100_000;

/** mapDestination is an explicit destination on the output's pages, or undefined when its page was left out. */
function mapDestination(copier: ObjectCopier, value: PdfObject | undefined): PdfArray | undefined {
  const resolved = copier.resolve(value);
  const array = resolved instanceof PdfDict ? copier.resolve(resolved.get("D")) : resolved;
  if (!(array instanceof PdfArray) || array.length === 0) return undefined;
  const [page, ...rest] = array.toArray();
  const mapped = page instanceof PdfRef ? copier.mapped(page) : undefined;
  if (!(mapped instanceof PdfRef)) return undefined;
  return new PdfArray([mapped, ...rest.map((item) => copier.resolve(item) ?? item).filter((item) => !(item instanceof PdfRef))]);
}

/** namedDestinations reads an input's named destinations (the catalog's /Dests and the /Names /Dests tree) kept on the output's pages. */
export function namedDestinations(copier: ObjectCopier, catalog: PdfDict): Map<string, PdfArray> {
  const found = new Map<string, PdfArray>();
  const add = (name: string | undefined, value: PdfObject | undefined) => {
    if (name === undefined || found.has(name) || found.size >= MAX_NAMES) return;
    const dest = mapDestination(copier, value);
    if (dest) found.set(name, dest);
  };
  const dests = copier.resolve(catalog.get("Dests"));
  if (dests instanceof PdfDict) for (const [key, value] of dests) add(key.value, value);
  const names = copier.resolve(catalog.get("Names"));
  const tree = names instanceof PdfDict ? copier.resolve(names.get("Dests")) : undefined;
  const seen = new Set<PdfObject>();
  const walk = (node: PdfObject | undefined, depth: number) => {
    const dict = copier.resolve(node);
    if (!(dict instanceof PdfDict) || depth > MAX_DEPTH || seen.has(dict) || found.size >= MAX_NAMES) return;
    seen.add(dict);
    const pairs = copier.resolve(dict.get("Names"));
    if (pairs instanceof PdfArray) {
      const items = pairs.toArray();
      for (let at = 0; at + 1 < items.length; at += 2) add(textOfName(copier.resolve(items[at])), items[at + 1]);
    }
    const kids = copier.resolve(dict.get("Kids"));
    if (kids instanceof PdfArray) for (const kid of kids.toArray()) walk(kid, depth + 1);
  };
  walk(tree, 0);
  return found;
}

/** OutlineBudget counts the bookmarks read from every input together. */
export interface OutlineBudget {
  items: number;
}

/** outlineTarget is a bookmark's destination or URI action in the output, or nothing when its page was left out. */
function outlineTarget(copier: ObjectCopier, item: PdfDict, names: ReadonlySet<string>): Pick<OutlineItem, "dest" | "action"> {
  const action = copier.resolve(item.get("A"));
  const kind = action instanceof PdfDict ? action.getName("S")?.value : undefined;
  const target = item.has("Dest") ? item.get("Dest") : kind === "GoTo" && action instanceof PdfDict ? action.get("D") : undefined;
  const name = textOfName(copier.resolve(target));
  if (name !== undefined) {
    const renamed = copier.renamed.get(name) ?? name;
    return names.has(renamed) ? { dest: PdfString.fromString(renamed) } : {};
  }
  const dest = target === undefined ? undefined : mapDestination(copier, target);
  if (dest) return { dest };
  if (kind === "URI" && action instanceof PdfDict) {
    const uri = copier.resolve(action.get("URI"));
    if (uri instanceof PdfString) return { action: PdfDict.of({ S: PdfName.of("URI"), URI: uri }) };
  }
  return {};
}

/** readOutline reads an input's bookmarks as they apply to the output (see the module comment). */
export function readOutline(copier: ObjectCopier, catalog: PdfDict, names: ReadonlySet<string>, budget: OutlineBudget): OutlineItem[] {
  const seen = new Set<PdfObject>();
  const level = (first: PdfObject | undefined, depth: number): OutlineItem[] => {
    const items: OutlineItem[] = [];
    let current = copier.resolve(first);
    while (current instanceof PdfDict && !seen.has(current) && budget.items < MAX_ITEMS && depth <= MAX_DEPTH) {
      seen.add(current);
      budget.items++;
      const title = copier.resolve(current.get("Title"));
      const children = level(current.get("First"), depth + 1);
      const target = outlineTarget(copier, current, names);
      if (target.dest || target.action || children.length > 0) items.push({ title: title instanceof PdfString ? title.asString() : "", ...target, children });
      current = copier.resolve(current.get("Next"));
    }
    return items;
  };
  const root = copier.resolve(catalog.get("Outlines"));
  return root instanceof PdfDict ? level(root.get("First"), 0) : [];
}

/**
 * writeOutline writes the bookmarks into the output's catalog: items with /Parent, /Prev, /Next,
 * /First, /Last and /Count; the top level open when asked (a merge's one entry per input), every
 * level below closed.
 */
export function writeOutline(pdf: PDF, items: OutlineItem[], openTop: boolean): void {
  if (items.length === 0) return;
  const root = PdfDict.of({ Type: PdfName.of("Outlines") });
  const rootRef = pdf.register(root);
  const writeLevel = (parentRef: PdfRef, parent: PdfDict, level: OutlineItem[], open: boolean): void => {
    const dicts = level.map(() => PdfDict.of({}));
    const refs = dicts.map((dict) => pdf.register(dict));
    level.forEach((item, index) => {
      const dict = dicts[index]!;
      dict.set("Title", PdfString.fromString(item.title));
      dict.set("Parent", parentRef);
      if (index > 0) dict.set("Prev", refs[index - 1]!);
      if (index + 1 < refs.length) dict.set("Next", refs[index + 1]!);
      if (item.dest) dict.set("Dest", item.dest);
      if (item.action) dict.set("A", item.action);
      if (item.children.length === 0) return;
      writeLevel(refs[index]!, dict, item.children, false);
      // Open: its children show (every level below is closed); closed: a negative count of them.
      dict.set("Count", PdfNumber.of(open ? item.children.length : -item.children.length));
    });
    parent.set("First", refs[0]!);
    parent.set("Last", refs.at(-1)!);
  };
  writeLevel(rootRef, root, items, openTop);
  const visible = items.length + (openTop ? items.reduce((sum, item) => sum + item.children.length, 0) : 0);
  root.set("Count", PdfNumber.of(visible));
  pdf.getCatalog().set("Outlines", rootRef);
}

/** writeNamedDestinations writes the output's named destinations as one name tree leaf, sorted as the tree requires. */
export function writeNamedDestinations(pdf: PDF, dests: Map<string, PdfArray>): void {
  if (dests.size === 0) return;
  const sorted = [...dests.entries()].sort(([a], [b]) => Buffer.compare(Buffer.from(a, "latin1"), Buffer.from(b, "latin1")));
  const names = new PdfArray(sorted.flatMap(([name, dest]) => [PdfString.fromString(name), dest]));
  pdf.getCatalog().set("Names", PdfDict.of({ Dests: pdf.register(PdfDict.of({ Names: names })) }));
}
