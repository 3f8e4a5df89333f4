import { PdfArray, PdfBool, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream, PdfString, PDF, type PdfObject } from "@libpdf/core";
import { ObjectCopier } from "#domain/pdf-tools/copier.ts";
import { namedDestinations, type OutlineBudget, type OutlineItem, readOutline, writeNamedDestinations, writeOutline } from "#domain/pdf-tools/outline.ts";
import { trailerOf } from "#domain/pdf/libpdf-internals.ts";
import { TimeSlice } from "#domain/shared/time-slice.ts";

/**
 * assemble builds one new PDF from pages of one or more source documents: the pages (each with its
 * own resources and annotations, inherited attributes made explicit, a rotation added), the form
 * fields whose widgets are on kept pages (a top-level name taken by an earlier input is renamed
 * `name#2`, `name#3`, ...), the named destinations (renamed the same way on collision) and the
 * bookmarks. Merge, split and pages are all this one function. What is not carried: the structure
 * tree (tags), XFA, JavaScript, embedded files, page labels, article threads, the source's
 * metadata and its signatures (the guard ran before).
 */

/** PageChoice is one output page: a source page (0-based) and the degrees added to its rotation. */
export interface PageChoice {
  index: number;
  rotate: number;
}

/** AssemblyInput is one source document and the pages taken from it, in output order. */
export interface AssemblyInput {
  pdf: PDF;
  pages: PageChoice[];
  /** The title of the bookmark that holds this input's bookmarks (merge); none: its bookmarks at the top. */
  title?: string | undefined;
}

/** AssemblyReport says what the output changed: renamed form fields and destinations (old -> new). */
export interface AssemblyReport {
  renamedFields: Array<{ from: string; to: string }>;
  renamedDestinations: Array<{ from: string; to: string }>;
}

const INHERITABLE = ["Resources", "MediaBox", "CropBox", "Rotate"] as const;
// Deeper than page trees nest; bounds the climb for inherited attributes.
const MAX_TREE_DEPTH = 64;

/** uniqueName is `name`, or `name#2`, `name#3`, ... when it is taken; the name is then taken. */
function uniqueName(name: string, taken: Set<string>): string {
  let candidate = name;
  for (let n = 2; taken.has(candidate); n++) candidate = `${name}#${n}`;
  taken.add(candidate);
  return candidate;
}

/** pageClone is a source page's dictionary ready to copy: inherited attributes made its own, no parent, rotation added. */
function pageClone(copier: ObjectCopier, page: PdfDict, rotate: number): PdfDict {
  const clone = page.clone();
  for (const key of INHERITABLE) {
    let node: PdfObject | undefined = page;
    for (let depth = 0; node instanceof PdfDict && !clone.has(key) && depth < MAX_TREE_DEPTH; depth++) {
      node = copier.resolve(node.get("Parent"));
      if (node instanceof PdfDict && node.has(key)) clone.set(key, node.get(key)!);
    }
  }
  if (!clone.has("MediaBox")) clone.set("MediaBox", PdfArray.of(PdfNumber.of(0), PdfNumber.of(0), PdfNumber.of(612), PdfNumber.of(792)));
  for (const key of ["Parent", "B", "Thumb", "StructParents", "PieceInfo"]) clone.delete(key);
  const current = copier.resolve(clone.get("Rotate"));
  const base = current instanceof PdfNumber && Number.isFinite(current.value) ? Math.round(current.value / 90) * 90 : 0;
  const rotation = (((base + rotate) % 360) + 360) % 360;
  if (rotation === 0) clone.delete("Rotate");
  else clone.set("Rotate", PdfNumber.of(rotation));
  return clone;
}

/** annotsOf lists a page's annotation references ("num gen"). */
function annotsOf(copier: ObjectCopier, page: PdfDict): string[] {
  const annots = copier.resolve(page.get("Annots"));
  if (!(annots instanceof PdfArray)) return [];
  return annots.toArray().flatMap((item) => (item instanceof PdfRef ? [`${item.objectNumber} ${item.generation}`] : []));
}

/** hasWidgetIn tells whether a field (or one of its kids, bounded) is a widget listed by a kept page. */
function hasWidgetIn(copier: ObjectCopier, field: PdfObject | undefined, widgets: Set<string>, depth = 0): boolean {
  if (field instanceof PdfRef && widgets.has(`${field.objectNumber} ${field.generation}`)) return true;
  const dict = copier.resolve(field);
  if (!(dict instanceof PdfDict) || depth > 32) return false;
  const kids = copier.resolve(dict.get("Kids"));
  return kids instanceof PdfArray && kids.toArray().some((kid) => hasWidgetIn(copier, kid, widgets, depth + 1));
}

/** FormState is the output's form as inputs are added. */
interface FormState {
  fields: PdfObject[];
  names: Set<string>;
  fonts: PdfDict;
  da?: PdfObject;
  needAppearances: boolean;
  sigFlags: number;
}

/** addFields copies an input's top-level fields that have a widget on a kept page, renaming a name taken by an earlier input. */
function addFields(copier: ObjectCopier, source: PDF, widgets: Set<string>, form: FormState, report: AssemblyReport): void {
  const acroForm = copier.resolve(source.getCatalog().get("AcroForm"));
  if (!(acroForm instanceof PdfDict)) return;
  const fields = copier.resolve(acroForm.get("Fields"));
  if (!(fields instanceof PdfArray)) return;
  const local = new Set<string>();
  for (const field of fields.toArray()) {
    if (!hasWidgetIn(copier, field, widgets)) continue;
    const copied = copier.copy(field);
    const dict = copied instanceof PdfRef ? copier.outputDict(copied) : undefined;
    const t = dict?.get("T");
    const name = t instanceof PdfString ? t.asString() : undefined;
    if (dict && name !== undefined && !local.has(name)) {
      local.add(name);
      const unique = uniqueName(name, form.names);
      if (unique !== name) {
        dict.set("T", PdfString.fromString(unique));
        report.renamedFields.push({ from: name, to: unique });
      }
    }
    form.fields.push(copied);
  }
  const dr = copier.resolve(acroForm.get("DR"));
  const fonts = dr instanceof PdfDict ? copier.resolve(dr.get("Font")) : undefined;
  if (fonts instanceof PdfDict) for (const [key, value] of fonts) if (!form.fonts.has(key.value)) form.fonts.set(key.value, copier.copy(value));
  if (form.da === undefined && acroForm.has("DA")) form.da = copier.copy(acroForm.get("DA")!);
  const needAppearances = copier.resolve(acroForm.get("NeedAppearances"));
  if (needAppearances instanceof PdfBool && needAppearances.value) form.needAppearances = true;
  const sigFlags = copier.resolve(acroForm.get("SigFlags"));
  if (sigFlags instanceof PdfNumber) form.sigFlags |= sigFlags.value & 1;
}

/** writeForm sets the output's /AcroForm when any field was kept. */
function writeForm(pdf: PDF, form: FormState): void {
  if (form.fields.length === 0) return;
  const acroForm = PdfDict.of({ Fields: new PdfArray(form.fields) });
  if (form.fonts.size > 0) acroForm.set("DR", PdfDict.of({ Font: form.fonts }));
  if (form.da !== undefined) acroForm.set("DA", form.da);
  if (form.needAppearances) acroForm.set("NeedAppearances", PdfBool.of(true));
  if (form.sigFlags) acroForm.set("SigFlags", PdfNumber.of(form.sigFlags));
  pdf.getCatalog().set("AcroForm", pdf.register(acroForm));
}

/** PlacedPages are an input's pages registered in the output (not yet filled): their copies, the widgets they list, the first. */
interface PlacedPages {
  copies: Array<{ clone: PdfDict; ref: PdfRef }>;
  widgets: Set<string>;
}

/** placePages registers the copies of an input's chosen pages and maps every source page (kept: its first copy; left out: null). */
function placePages(copier: ObjectCopier, input: AssemblyInput, output: PDF): PlacedPages {
  const sourcePages = input.pdf.getPages();
  const kept = new Set(input.pages.map((page) => page.index));
  for (const [index, page] of sourcePages.entries()) if (!kept.has(index)) copier.seedPage(page.ref, null);
  const placed: PlacedPages = { copies: [], widgets: new Set() };
  for (const choice of input.pages) {
    const page = sourcePages[choice.index]!;
    const clone = pageClone(copier, page.dict, choice.rotate);
    const ref = output.register(clone);
    if (copier.mapped(page.ref) === undefined) copier.seedPage(page.ref, ref);
    placed.copies.push({ clone, ref });
    for (const annot of annotsOf(copier, page.dict)) placed.widgets.add(annot);
  }
  return placed;
}

/**
 * dropMissing takes out of a copied page's /Contents and /Annots what resolved to nothing (an
 * object the file never defines, a page left out): readers disagree about a null among content
 * streams, and qpdf calls it an error.
 */
function dropMissing(output: PDF, page: PdfDict): void {
  for (const key of ["Contents", "Annots"]) {
    const value = page.get(key);
    if (!(value instanceof PdfArray)) continue;
    const kept = value.toArray().filter((item) => {
      const object = item instanceof PdfRef ? output.getObject(item) : item;
      return key === "Contents" ? object instanceof PdfStream : object instanceof PdfDict;
    });
    if (kept.length === 0) page.delete(key);
    else page.set(key, new PdfArray(kept));
  }
}

/** fillPages copies what the placed pages use and appends them to the output, pausing the event loop between turns. */
async function fillPages(copier: ObjectCopier, placed: PlacedPages, output: PDF, slice: TimeSlice): Promise<void> {
  for (const { clone, ref } of placed.copies) {
    copier.copyDictValues(clone);
    dropMissing(output, clone);
    output.insertPage(output.getPageCount(), ref);
    if (slice.due()) await slice.pause();
  }
}

/** Assembly is an output being built, one input at a time (a merge reads its inputs one after another). */
export interface Assembly {
  output: PDF;
  report: AssemblyReport;
  form: FormState;
  destinations: Map<string, PdfArray>;
  outline: OutlineItem[];
  budget: OutlineBudget;
  slice: TimeSlice;
  titled: boolean;
  /** How many inputs were added so far (the first gives the output its /Info entries). */
  inputs: number;
}

/** DESCRIPTIVE_INFO are the /Info entries an output takes from its first input (ISO 32000-1 table 317). */
const DESCRIPTIVE_INFO = ["Title", "Author", "Subject", "Keywords"] as const;

/** emptyOutput is a new PDF whose /Info holds no made-up entries (libpdf's create writes Title "Untitled" and Author "Unknown"). */
function emptyOutput(): PDF {
  const output = PDF.create();
  const info = infoOf(output);
  for (const key of DESCRIPTIVE_INFO) info?.delete(key);
  return output;
}

function infoOf(pdf: PDF): PdfDict | undefined {
  const ref = trailerOf(pdf).get("Info");
  const info = ref instanceof PdfRef ? pdf.getObject(ref) : ref;
  return info instanceof PdfDict ? info : undefined;
}

/** takeInfo gives the output its first input's title, author, subject and keywords (as qpdf's --pages keeps the first file's /Info). */
function takeInfo(output: PDF, input: PDF): void {
  const from = infoOf(input);
  const to = infoOf(output);
  if (!from || !to) return;
  for (const key of DESCRIPTIVE_INFO) {
    const value = from.get(key);
    const text = value instanceof PdfRef ? input.getObject(value) : value;
    if (text instanceof PdfString) to.set(key, PdfString.fromString(text.asString()));
  }
}

/** startAssembly begins an empty output. */
export function startAssembly(): Assembly {
  return {
    output: emptyOutput(),
    report: { renamedFields: [], renamedDestinations: [] },
    form: { fields: [], names: new Set(), fonts: PdfDict.of({}), needAppearances: false, sigFlags: 0 },
    destinations: new Map(),
    outline: [],
    budget: { items: 0 },
    slice: new TimeSlice(),
    titled: false,
    inputs: 0,
  };
}

/** addInput copies one input into the output: pages placed, destinations named (renamed on collision), pages filled, fields, bookmarks. */
export async function addInput(state: Assembly, input: AssemblyInput): Promise<void> {
  const { output, report } = state;
  if (state.inputs++ === 0) takeInfo(output, input.pdf);
  const copier = new ObjectCopier(input.pdf, output);
  const placed = placePages(copier, input, output);
  const catalog = input.pdf.getCatalog();
  const taken = new Set(state.destinations.keys());
  for (const [name, dest] of namedDestinations(copier, catalog)) {
    const unique = uniqueName(name, taken);
    if (unique !== name) {
      copier.renamed.set(name, unique);
      report.renamedDestinations.push({ from: name, to: unique });
    }
    state.destinations.set(unique, dest);
  }
  await fillPages(copier, placed, output, state.slice);
  addFields(copier, input.pdf, placed.widgets, state.form, report);
  const items = readOutline(copier, catalog, new Set(state.destinations.keys()), state.budget);
  const first = placed.copies[0]?.ref;
  if (input.title === undefined) state.outline.push(...items);
  else if (first) {
    state.titled = true;
    state.outline.push({ title: input.title, dest: PdfArray.of(first, PdfName.of("Fit")), children: items });
  }
  if (state.slice.due()) await state.slice.pause();
}

/** finishAssembly writes the output's form, named destinations and bookmarks, and saves it. */
export async function finishAssembly(state: Assembly): Promise<Uint8Array> {
  writeForm(state.output, state.form);
  writeNamedDestinations(state.output, state.destinations);
  writeOutline(state.output, state.outline, state.titled);
  // Streams are copied as they were encoded; compressing the few plain ones is not worth the time.
  return state.output.save({ compressStreams: false });
}

/** assemble builds one output from inputs known up front (split, pages) and says what it renamed. */
export async function assemble(inputs: AssemblyInput[]): Promise<{ bytes: Uint8Array; report: AssemblyReport }> {
  const state = startAssembly();
  for (const input of inputs) await addInput(state, input);
  return { bytes: await finishAssembly(state), report: state.report };
}
