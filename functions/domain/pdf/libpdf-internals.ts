import { type EmbeddedFont, type FormField, type PDF, PdfArray, PdfDict, PdfNumber, PdfRef, type PdfString, type SignatureField } from "@libpdf/core";

/**
 * The one place that reads or writes @libpdf/core's non-public state. package.json pins the exact
 * version (0.4.2); test/integration/libpdf-internals.test.ts is the canary that fails when an upgrade
 * renames or reshapes any of this. Everything else uses libpdf's public API only.
 */

/** LIBPDF_VERSION is the @libpdf/core version these accessors were written against. */
export const LIBPDF_VERSION = "0.4.2";

/**
 * exactPdfNumber writes a number as PDF syntax with as many decimals as keep its value (5 to 10,
 * trailing zeros dropped; an integer without a point). libpdf 0.4.2 writes every real with at most
 * 5 decimals, so an object an incremental update rewrites (a filled field's widget, a page that gets
 * a signature widget) had /BG [0.860001 0.899994] written as [0.86 0.89999]: a changed value, which
 * Signet's verify and pyHanko count as a change "other" against every earlier signature.
 */
export function exactPdfNumber(value: number): string {
  if (Number.isInteger(value)) return value.toString();
  let text = value.toFixed(10);
  for (let digits = 5; digits < 10; digits++) {
    const candidate = value.toFixed(digits);
    if (Number(candidate) === value) {
      text = candidate;
      break;
    }
  }
  const trimmed = text.replace(/\.?0+$/, "");
  return trimmed === "" || trimmed === "-" || trimmed === "-0" ? "0" : trimmed;
}

// Every PdfNumber libpdf serialises (objects of an update, a new file) keeps its value.
(PdfNumber.prototype as unknown as { toBytes(writer: { writeAscii(text: string): void }): void }).toBytes = function (
  this: PdfNumber,
  writer: { writeAscii(text: string): void },
): void {
  writer.writeAscii(exactPdfNumber(this.value));
};

/** isSignatureField narrows a form field to a signature field (getFields() types them as FormField). */
function isSignatureField(field: FormField): field is FormField & SignatureField {
  return field.type === "signature";
}

/** signatureDictOf is a field's signature dictionary (/V) when it is a signed signature field, else null. */
export function signatureDictOf(field: FormField): PdfDict | null {
  return isSignatureField(field) ? field.getSignatureDict() : null;
}

/** fieldRefOf is the indirect reference of a form field (a protected member in libpdf's typings). */
export function fieldRefOf(field: FormField): PdfRef | null {
  return (field as unknown as { ref: PdfRef | null }).ref;
}

/** PageTreeInternals is libpdf's cached page tree (context.pages). */
export interface PageTreeInternals {
  flattened: boolean;
  pages: PdfRef[];
  root: PdfDict;
  rootRef: PdfRef;
  getPageDict(ref: PdfRef): PdfDict | null;
}

/** pageTreeOf is the document's page tree cache, whose `flattened` flag decides whether addPage rewrites /Parent on every page. */
export function pageTreeOf(pdf: PDF): PageTreeInternals {
  return (pdf.context as unknown as { pages: PageTreeInternals }).pages;
}

/** trailerOf is the trailer dictionary libpdf parsed (the latest revision's /ID, /Info, ...). */
export function trailerOf(pdf: PDF): PdfDict {
  return (pdf.context as unknown as { info: { trailer: PdfDict } }).info.trailer;
}

/** newObjectsOf lists the objects this session created (what an incremental save appends). */
export function newObjectsOf(pdf: PDF): Map<PdfRef, unknown> {
  return (pdf.context as unknown as { registry: { getNewObjects(): Map<PdfRef, unknown> } }).registry.getNewObjects();
}

/** RegistryInternals is libpdf's object registry: the objects read so far, and how it reads the next one. */
interface RegistryInternals {
  loaded: Map<PdfRef, unknown>;
  resolver: ((ref: PdfRef) => unknown) | null;
  register(object: unknown): PdfRef;
}

const registryOf = (pdf: PDF) => (pdf.context as unknown as { registry: RegistryInternals }).registry;

/** markUnchanged clears the modified flags of an object read from the file and of its direct parts (not what its references name). */
function markUnchanged(object: unknown): void {
  if (!(object instanceof PdfDict) && !(object instanceof PdfArray)) return;
  object.clearDirty();
  for (const item of object instanceof PdfDict ? [...object].map(([, value]) => value) : [...object]) if (!(item instanceof PdfRef)) markUnchanged(item);
}

/** cleanRegistry marks what the registry holds as read, and everything it reads from now on, unchanged. */
function cleanRegistry(pdf: PDF, substitutes: Map<string, PdfDict>): void {
  const registry = registryOf(pdf);
  for (const object of registry.loaded.values()) markUnchanged(object);
  const read = registry.resolver;
  if (!read) return;
  registry.resolver = (ref) => {
    const object = substitutes.get(`${ref.objectNumber} ${ref.generation}`) ?? read(ref);
    markUnchanged(object);
    return object;
  };
}

/** SaveInternals is libpdf's one save path: save() and its signing and update methods all call saveInternal. */
interface SaveInternals {
  saveInternal(options?: { incremental?: boolean }): unknown;
}

/** beforeIncrementalSave runs `hook` just before each incremental save of `pdf`, those inside libpdf's own update methods (addValidationData, addTimestamp) included. */
export function beforeIncrementalSave(pdf: PDF, hook: () => void): void {
  const state = pdf as unknown as SaveInternals;
  const saveInternal = state.saveInternal.bind(pdf);
  state.saveInternal = (options) => {
    if (options?.incremental) hook();
    return saveInternal(options);
  };
}

/** isStandardEncrypt tells the /Encrypt dictionary libpdf rebuilds for a save (standard handler: /Filter /Standard, /O, /U). */
function isStandardEncrypt(object: unknown): boolean {
  return object instanceof PdfDict && object.getName("Filter")?.value === "Standard" && object.has("O") && object.has("U");
}

/**
 * keepEncryptDictionary makes each incremental save name the file's own /Encrypt object in its
 * trailer: libpdf rebuilds the dictionary and writes it as a new object in every update (with
 * /EncryptMetadata as a name, not a boolean), which verifiers after a signature count as a change
 * nothing explains.
 */
function keepEncryptDictionary(pdf: PDF): void {
  const state = pdf as unknown as SaveInternals;
  const saveInternal = state.saveInternal.bind(pdf);
  state.saveInternal = (options) => {
    const existing = trailerOf(pdf).get("Encrypt");
    if (!options?.incremental || !(existing instanceof PdfRef)) return saveInternal(options);
    const registry = registryOf(pdf);
    const register = registry.register;
    let kept = false;
    registry.register = (object) => {
      if (kept || !isStandardEncrypt(object)) return register.call(registry, object);
      kept = true;
      return existing;
    };
    try {
      return saveInternal(options);
    } finally {
      registry.register = register;
    }
  };
}

/**
 * prepareEncryptedUpdate makes libpdf's incremental updates of an encrypted document hold what
 * changed and nothing else, as they do for a plain one. libpdf's decryption rebuilds every
 * dictionary it reads through set(), which marks it modified: a save would rewrite (re-encrypt)
 * every object read, earlier signature dictionaries included, and a reload (libpdf's own, after
 * each of its updates) would write another update of untouched objects; and each save writes a
 * new copy of /Encrypt (keepEncryptDictionary). `substitutes` are objects ("number generation")
 * libpdf is given instead of decrypting them itself: signature dictionaries, whose /Contents is
 * written in the clear (ISO 32000-2 7.6.2) and which libpdf decrypts like any string (RC4 garbles
 * it; AES fails, warns on the console and leaves the whole dictionary encrypted).
 */
export function prepareEncryptedUpdate(pdf: PDF, substitutes = new Map<string, PdfDict>()): void {
  cleanRegistry(pdf, substitutes);
  keepEncryptDictionary(pdf);
  const reload = pdf.reload.bind(pdf);
  pdf.reload = async (bytes: Uint8Array) => {
    await reload(bytes);
    cleanRegistry(pdf, substitutes);
  };
}

/** allowIncrementalOnLinearized clears libpdf's linearized flag, which otherwise refuses an incremental save. */
export function allowIncrementalOnLinearized(pdf: PDF): void {
  (pdf as unknown as { _isLinearized: boolean })._isLinearized = false;
}

/**
 * rebaseOnto makes an incremental save append to `bytes` (whose newest cross-reference section is
 * at `xrefOffset`) instead of the bytes the document was parsed from: Signet parses some files
 * through a view with a rebuilt cross-reference stream appended (readable-xref.ts withReadableXref).
 */
export function rebaseOnto(pdf: PDF, bytes: Uint8Array, xrefOffset: number, usesXRefStreams: boolean): void {
  const state = pdf as unknown as { originalBytes: Uint8Array; originalXRefOffset: number; _usesXRefStreams: boolean };
  state.originalBytes = bytes;
  state.originalXRefOffset = xrefOffset;
  state._usesXRefStreams = usesXRefStreams;
}

/**
 * registerEmbeddedFont attaches an already parsed font to a document the way PDFFonts.embed does
 * after parsing: allocate its ref and register it for finalisation (subsetting at save).
 */
export function registerEmbeddedFont(pdf: PDF, font: EmbeddedFont): void {
  const fonts = pdf.fonts as unknown as { embeddedFonts: Map<EmbeddedFont, PdfRef> };
  const ref = (pdf.context as unknown as { registry: { allocateRef(): PdfRef } }).registry.allocateRef();
  fonts.embeddedFonts.set(font, ref);
  font.setRef(ref);
}

/**
 * extractGlyphAs makes a subset font's ToUnicode map an already used glyph to `codePoint` (libpdf
 * writes the first code point recorded for a glyph in usedGlyphs): an Arabic contextual form then
 * extracts as its base letter. A font embedded whole (markUsedInForm) keeps libpdf's own mapping.
 */
export function extractGlyphAs(font: EmbeddedFont, gid: number, codePoint: number): void {
  const used = (font as unknown as { usedGlyphs: Map<number, Set<number>> }).usedGlyphs;
  used.set(gid, new Set([codePoint, ...(used.get(gid) ?? [])]));
}

/** FontsInternals is libpdf's PDFFonts state: the fonts finalised at save, by their pre-allocated refs. */
interface FontsInternals {
  embeddedFonts: Map<EmbeddedFont, PdfRef>;
  finalized: boolean;
  finalize(subsetFonts: boolean): void;
}

/** usedGlyphsOf is what a font drew: glyph id to the code points recorded for it (the first is what ToUnicode maps it to). */
export function usedGlyphsOf(font: EmbeddedFont): ReadonlyMap<number, ReadonlySet<number>> {
  return (font as unknown as { usedGlyphs: Map<number, Set<number>> }).usedGlyphs;
}

/**
 * finalizeFontAlone runs libpdf's own finalisation (subset, ToUnicode, widths, descriptor, at the
 * font's pre-allocated ref) for one embedded font now, and takes it off the list save finalises;
 * it returns that ref. The font draws nothing more afterwards.
 */
export function finalizeFontAlone(pdf: PDF, font: EmbeddedFont): PdfRef {
  const fonts = pdf.fonts as unknown as FontsInternals;
  const all = fonts.embeddedFonts;
  const ref = all.get(font);
  if (!ref || fonts.finalized) throw new Error("finalizeFontAlone: the font is not waiting for finalisation in this document");
  fonts.embeddedFonts = new Map([[font, ref]]);
  try {
    fonts.finalize(true);
  } finally {
    fonts.embeddedFonts = all;
    fonts.finalized = false;
  }
  all.delete(font);
  return ref;
}

/**
 * registerFontAt puts a font's Type0 dictionary (built elsewhere, its other objects registered)
 * at the font's pre-allocated ref, with its subset tag, and takes the font off the list save finalises.
 */
export function registerFontAt(pdf: PDF, font: EmbeddedFont, type0: PdfDict, subsetTag: string | null): void {
  const fonts = pdf.fonts as unknown as FontsInternals;
  const ref = fonts.embeddedFonts.get(font);
  if (!ref || fonts.finalized) throw new Error("registerFontAt: the font is not waiting for finalisation in this document");
  (pdf.context as unknown as { registry: { registerAt(ref: PdfRef, object: unknown): void } }).registry.registerAt(ref, type0);
  if (subsetTag) font.setSubsetTag(subsetTag);
  fonts.embeddedFonts.delete(font);
}

/**
 * checkLibpdfInternals throws, naming each accessor, when the shapes above are not what a loaded
 * document holds (the canary test calls it; so could a start-up check).
 */
export function checkLibpdfInternals(pdf: PDF): void {
  const problems: string[] = [];
  const context = pdf.context as unknown as Record<string, unknown>;
  const tree = context.pages as Partial<PageTreeInternals> | undefined;
  if (!tree || typeof tree.flattened !== "boolean" || !Array.isArray(tree.pages) || typeof tree.getPageDict !== "function" || !tree.root || !tree.rootRef) {
    problems.push("context.pages (page tree: flattened, pages, root, rootRef, getPageDict)");
  }
  const info = context.info as { trailer?: { get?: unknown } } | undefined;
  if (typeof info?.trailer?.get !== "function") problems.push("context.info.trailer");
  const registry = context.registry as { getNewObjects?: unknown; allocateRef?: unknown; registerAt?: unknown } | undefined;
  if (typeof registry?.getNewObjects !== "function") problems.push("context.registry.getNewObjects");
  if (typeof registry?.allocateRef !== "function") problems.push("context.registry.allocateRef");
  if (typeof registry?.registerAt !== "function") problems.push("context.registry.registerAt");
  const reading = registry as Partial<RegistryInternals> | undefined;
  if (!(reading?.loaded instanceof Map) || typeof reading.resolver !== "function") problems.push("context.registry.loaded, resolver");
  if (typeof (pdf as unknown as { saveInternal?: unknown }).saveInternal !== "function") problems.push("PDF.saveInternal");
  const state = pdf as unknown as Record<string, unknown>;
  if (typeof state._isLinearized !== "boolean") problems.push("PDF._isLinearized");
  if (!(state.originalBytes instanceof Uint8Array) || typeof state.originalXRefOffset !== "number" || typeof state._usesXRefStreams !== "boolean") {
    problems.push("PDF.originalBytes, originalXRefOffset, _usesXRefStreams");
  }
  const fonts = pdf.fonts as unknown as Partial<FontsInternals>;
  if (!(fonts.embeddedFonts instanceof Map) || typeof fonts.finalized !== "boolean" || typeof fonts.finalize !== "function") {
    problems.push("fonts.embeddedFonts, fonts.finalized, fonts.finalize");
  }
  for (const font of (pdf.fonts as unknown as { embeddedFonts?: Map<EmbeddedFont, PdfRef> }).embeddedFonts?.keys() ?? []) {
    if (!((font as unknown as { usedGlyphs?: unknown }).usedGlyphs instanceof Map)) problems.push("EmbeddedFont.usedGlyphs");
  }
  for (const field of pdf.getForm()?.getFields() ?? []) {
    if (!("ref" in field)) problems.push("FormField.ref");
    if (isSignatureField(field) && typeof field.getSignatureDict !== "function") problems.push("SignatureField.getSignatureDict");
  }
  if (problems.length > 0) {
    throw new Error(
      `@libpdf/core internals changed (written for ${LIBPDF_VERSION}): ${[...new Set(problems)].join(", ")}. Update functions/domain/pdf/libpdf-internals.ts.`,
    );
  }
}

/**
 * clearHexPlaceholder is a hex string of `bytes` zero bytes that libpdf writes as it is: its writer
 * encrypts every PdfString of an encrypted document (encryptObject checks `instanceof PdfString`),
 * but a signature's /Contents stays in the clear (ISO 32000-2 7.6.2). Shaped like libpdf's own
 * PdfRaw (not exported), which its writer serializes through toBytes.
 */
export function clearHexPlaceholder(bytes: number): PdfString {
  const text = new TextEncoder().encode(`<${"00".repeat(bytes)}>`);
  return { type: "raw", toBytes: (writer: { writeBytes(data: Uint8Array): void }) => writer.writeBytes(text) } as unknown as PdfString;
}
