import { PdfArray, PdfDict, PdfName, PdfNull, PdfRef, PdfStream, PdfString, type PDF, type PdfObject } from "@libpdf/core";
import { SignetError } from "#domain/shared/errors.ts";

/**
 * ObjectCopier deep-copies objects of one source document into the output document, once per
 * source object (a reference map), with the source's pages already mapped (`seedPage`): a kept
 * page's references (a link's /Dest, a widget's /P) point to its copy, a page left out becomes
 * null, and page-tree nodes and catalogs are never pulled in. libpdf's own copier (copyPagesFrom)
 * follows a widget's /P or a link's destination into the whole source page tree; this one copies
 * what the kept pages need and nothing else. Named destinations renamed on collision are
 * rewritten where a link or a GoTo action names them.
 */

// A reference chain deeper than real documents nest (annotation -> appearance -> resources ->
// font -> descriptor is about ten): beyond it the file is refused rather than the stack overflowed.
const MAX_DEPTH = 200;

const nameKey = (ref: PdfRef) => `${ref.objectNumber} ${ref.generation}`;

/** textOfName is a destination name as text: a string or a name object. */
export function textOfName(value: PdfObject | undefined): string | undefined {
  if (value instanceof PdfString) return value.asString();
  if (value instanceof PdfName) return value.value;
  return undefined;
}

/** ObjectCopier copies from one source document into the output (one per input). */
export class ObjectCopier {
  private readonly map = new Map<string, PdfObject>();
  /** Renamed named destinations of this input (old name -> new name). */
  readonly renamed = new Map<string, string>();
  /** Objects copied so far: the caller pauses the event loop by it. */
  copied = 0;

  constructor(
    private readonly source: PDF,
    private readonly dest: PDF,
  ) {}

  /** seedPage says what a source page becomes: its copy's reference, or null when it is left out. */
  seedPage(sourceRef: PdfRef, copy: PdfRef | null): void {
    this.map.set(nameKey(sourceRef), copy ?? PdfNull.instance);
  }

  /** mapped is what a source reference became (undefined when not copied or not seeded). */
  mapped(sourceRef: PdfRef): PdfObject | undefined {
    return this.map.get(nameKey(sourceRef));
  }

  /** outputDict is the output dictionary a copied reference points to. */
  outputDict(ref: PdfRef): PdfDict | undefined {
    const object = this.dest.getObject(ref);
    return object instanceof PdfDict ? object : undefined;
  }

  /** resolve follows a source reference (a direct value is itself). */
  resolve(value: PdfObject | undefined): PdfObject | undefined {
    return value instanceof PdfRef ? (this.source.getObject(value) ?? undefined) : value;
  }

  /** copy deep-copies a source value into the output. */
  copy(value: PdfObject, depth = 0): PdfObject {
    if (depth > MAX_DEPTH) throw new SignetError("INVALID_DOCUMENT", `The PDF nests objects more than ${MAX_DEPTH} deep; re-save it, then send it again.`);
    if (value instanceof PdfRef) return this.copyRef(value, depth);
    if (value instanceof PdfStream) return this.copyStream(value, depth);
    if (value instanceof PdfDict) return this.copyDictValues(value.clone(), depth);
    if (value instanceof PdfArray) return new PdfArray(value.toArray().map((item) => this.copy(item, depth + 1)));
    return value;
  }

  /** copyPageDict copies a page dictionary's entries in place (the page itself was cloned and registered by the caller). */
  copyDictValues(dict: PdfDict, depth = 0): PdfDict {
    this.copied++;
    for (const [key, value] of dict) dict.set(key.value, this.copy(value, depth + 1));
    this.renameDestination(dict);
    return dict;
  }

  private copyRef(ref: PdfRef, depth: number): PdfObject {
    const key = nameKey(ref);
    const known = this.map.get(key);
    if (known) return known;
    const object = this.source.getObject(ref);
    if (object instanceof PdfDict && ["Pages", "Page", "Catalog"].includes(object.getName("Type")?.value ?? "")) {
      // A page not seeded (not in the page tree) or a tree node: never pulled into the output.
      this.map.set(key, PdfNull.instance);
      return PdfNull.instance;
    }
    if (object === null || object === undefined) return PdfNull.instance;
    if (object instanceof PdfStream) {
      const stream = this.streamCopy(object);
      const copyRef = this.dest.register(stream);
      this.map.set(key, copyRef);
      this.copyDictValues(stream, depth);
      return copyRef;
    }
    if (object instanceof PdfDict) {
      const clone = object.clone();
      const copyRef = this.dest.register(clone);
      this.map.set(key, copyRef);
      this.copyDictValues(clone, depth);
      return copyRef;
    }
    if (object instanceof PdfArray) {
      const array = new PdfArray([]);
      const copyRef = this.dest.register(array);
      this.map.set(key, copyRef);
      for (const item of object.toArray()) array.push(this.copy(item, depth + 1));
      return copyRef;
    }
    const copyRef = this.dest.register(object);
    this.map.set(key, copyRef);
    return copyRef;
  }

  private copyStream(stream: PdfStream, depth: number): PdfStream {
    const copy = this.streamCopy(stream);
    this.copyDictValues(copy, depth);
    return copy;
  }

  /** streamCopy clones a stream with its data: the encoded bytes, as they are (the source is never encrypted here). */
  private streamCopy(stream: PdfStream): PdfStream {
    return new PdfStream(stream.clone(), stream.data);
  }

  /** renameDestination rewrites a /Dest (link) or a GoTo action's /D that names a renamed destination. */
  private renameDestination(dict: PdfDict): void {
    if (this.renamed.size === 0) return;
    const key = dict.has("Dest") ? "Dest" : dict.getName("S")?.value === "GoTo" ? "D" : undefined;
    if (!key) return;
    const name = textOfName(dict.get(key));
    const renamed = name === undefined ? undefined : this.renamed.get(name);
    if (renamed !== undefined) dict.set(key, PdfString.fromString(renamed));
  }
}
