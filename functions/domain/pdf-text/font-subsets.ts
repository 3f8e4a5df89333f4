// Font subsets made once per process: the objects libpdf finalises for a subset font (the subset
// program, ToUnicode, widths, descriptor) depend only on the font program and the glyphs drawn with
// the code points each stands for, so they are copied from the first document that drew the same
// glyphs instead of subsetting again (the certificate page draws mostly the same text every time).
import { type EmbeddedFont, type PDF, PdfArray, PdfDict, type PdfObject, PdfRef, PdfStream, PdfString } from "@libpdf/core";
import { finalizeFontAlone, newObjectsOf, registerFontAt, usedGlyphsOf } from "#domain/pdf/libpdf-internals.ts";

/** Subset is a finalised font as a detached object graph: the Type0 dictionary and the objects it references by ref. */
interface Subset {
  root: PdfDict;
  objects: Map<PdfRef, PdfObject>;
  tag: string | null;
}

/** SUBSETS_PER_PROGRAM bounds the subsets kept per font program (least recently used dropped). */
const SUBSETS_PER_PROGRAM = 32;
/**
 * SUBSET_MAX_BYTES: a subset with more stream data is not kept (a page of thousands of CJK glyphs
 * would hold megabytes): with 32 per program and the dozen bundled programs, at most about 25 MB.
 * The certificate page's usual subsets are 8-25 KB.
 */
const SUBSET_MAX_BYTES = 64 * 1024;

const subsets = new WeakMap<EmbeddedFont["program"], Map<string, Subset>>();

/** subsetKey names what decides a subset: each glyph drawn with its code points in order (the first is its ToUnicode). */
function subsetKey(font: EmbeddedFont): string {
  const glyphs = [...usedGlyphsOf(font)].sort((a, b) => a[0] - b[0]);
  return glyphs.map(([gid, codePoints]) => `${gid}:${[...codePoints].join(",")}`).join(";");
}

/** copy is a deep copy of a PDF value; refs become `ref(old)` (dictionaries, arrays, streams and strings are new objects, stream data is shared). */
function copy<T extends PdfObject>(value: T, ref: (old: PdfRef) => PdfRef): T;
function copy(value: PdfObject, ref: (old: PdfRef) => PdfRef): PdfObject {
  if (value instanceof PdfRef) return ref(value);
  if (value instanceof PdfStream) return new PdfStream(copyEntries(value, ref), value.data);
  if (value instanceof PdfDict) return new PdfDict(copyEntries(value, ref));
  if (value instanceof PdfArray) return new PdfArray([...value].map((item) => copy(item, ref)));
  if (value instanceof PdfString) return new PdfString(value.bytes.slice(), value.format);
  return value;
}

function copyEntries(dict: PdfDict, ref: (old: PdfRef) => PdfRef): Array<[string, PdfObject]> {
  return [...dict].map(([key, value]) => [key.value, copy(value, ref)]);
}

/** detach copies the objects libpdf registered for a finalised font (reachable from its ref among the document's new objects). */
function detach(pdf: PDF, root: PdfRef, tag: string | null): Subset {
  const created = newObjectsOf(pdf);
  const objects = new Map<PdfRef, PdfObject>();
  const visit = (ref: PdfRef): PdfRef => {
    const object = created.get(ref) as PdfObject | undefined;
    if (objects.has(ref) || object === undefined) return ref;
    objects.set(ref, object); // a cycle back to it stays a ref
    objects.set(ref, copy(object, visit));
    return ref;
  };
  visit(root);
  const type0 = objects.get(root);
  if (!(type0 instanceof PdfDict)) throw new Error("font-subsets: the finalised font is not a dictionary");
  objects.delete(root);
  return { root: type0, objects, tag };
}

/** attach registers a copy of a subset's objects in a document, its Type0 dictionary at the font's own ref. */
function attach(pdf: PDF, font: EmbeddedFont, subset: Subset): void {
  const made = new Map<PdfRef, PdfRef>();
  const ref = (old: PdfRef): PdfRef => {
    const object = subset.objects.get(old);
    if (object === undefined) return old;
    let target = made.get(old);
    if (!target) {
      target = pdf.register(copy(object, ref));
      made.set(old, target);
    }
    return target;
  };
  registerFontAt(pdf, font, copy(subset.root, ref), subset.tag);
}

/**
 * finalizeSubset makes a subset font's PDF objects now, copied from the process's earlier subset
 * of the same glyphs when there is one, else by libpdf (then kept). A font that is not subset is
 * left to libpdf's save. The font may draw nothing afterwards.
 */
export function finalizeSubset(pdf: PDF, font: EmbeddedFont): void {
  if (!font.canSubset() || usedGlyphsOf(font).size === 0) return;
  let known = subsets.get(font.program);
  if (!known) {
    known = new Map();
    subsets.set(font.program, known);
  }
  const key = subsetKey(font);
  const subset = known.get(key);
  if (subset) {
    known.delete(key); // most recently used last
    known.set(key, subset);
    attach(pdf, font, subset);
    return;
  }
  const root = finalizeFontAlone(pdf, font);
  const made = detach(pdf, root, font.subsetTag);
  if (streamBytes(made) > SUBSET_MAX_BYTES) return;
  if (known.size >= SUBSETS_PER_PROGRAM) known.delete(known.keys().next().value!);
  known.set(key, made);
}

/** streamBytes is the stream data a subset holds. */
function streamBytes(subset: Subset): number {
  let bytes = 0;
  for (const object of subset.objects.values()) if (object instanceof PdfStream) bytes += object.data.length;
  return bytes;
}
