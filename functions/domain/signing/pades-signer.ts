import { createHash, type Hash } from "node:crypto";
import { deflateSync } from "node:zlib";
import { type PDF, type PDFPage, PdfArray, PdfDict, PdfName, PdfNumber, type PdfRef, PdfStream, PdfString } from "@libpdf/core";
import { createCadesSignature, documentHash, measureCadesSignature, type Timestamper } from "#domain/signing/cades-signature.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { allowIncrementalOnLinearized, clearHexPlaceholder, fieldRefOf, newObjectsOf, trailerOf } from "#domain/pdf/libpdf-internals.ts";
import { loadForWriting, readPdfFile } from "#domain/pdf/open-pdf.ts";
import { fileTrailerValues, lastTrailerValues } from "#domain/pdf/readable-xref.ts";
import { lastIndirectPage, pageTreeLoopError, type PageTreeShape, prepareForNewPages } from "#domain/pdf/page-tree.ts";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import { type DocMdpPermission, readCertification } from "#domain/pdf/docmdp.ts";
import { lockPermission } from "#domain/pdf/field-lock.ts";
import type { SigningIdentity } from "#domain/signing/signing-identity.ts";
import { certificationNotFirst, declareCertification, docMdpReference } from "#domain/signing/certification.ts";
import { type AppearanceBox, placeInField, type SignatureFieldRequest } from "#domain/signing/signature-field.ts";
import { checkLocksAllowSignature, documentLocks, fieldLockOf, lockedCertification, signatureReferences } from "#domain/signing/field-lock-signature.ts";

/** ExistingPages is what the document held before Signet added anything, as readers count it (Signet's own page tree walk). */
export interface ExistingPages {
  pages: number;
  /** The last page's size as shown (rotation applied); A4 when it cannot be read. */
  lastPage: { width: number; height: number };
}

/** InputFacts says what signing did with the input beyond appending the signature. */
export interface InputFacts {
  /** Set when the unsigned input was rewritten once, cleanly, and the rewritten file was signed. */
  rewritten?: { reason: string; sha256: string } | undefined;
  /** A signed hybrid-reference file was kept as it is (strict validators refuse to evaluate its signatures). */
  hybridKept?: boolean | undefined;
  /** Set when the certificate page was asked for but left out: why. */
  certificatePageLeftOut?: string | undefined;
}

/** PadesSignOptions describe one PAdES signature. */
export interface PadesSignOptions {
  identity: SigningIdentity;
  /** The claimed signing time, written to /M (B-B has no signing-time attribute). */
  signingTime: Date;
  /** /Name: the person signing. */
  signerName: string;
  /** /Reason. */
  reason: string;
  /** /ContactInfo, e.g. the signer's e-mail address. */
  contactInfo?: string;
  /** /Location, where the signing took place. */
  location?: string | undefined;
  /** Makes this a certification signature with this DocMDP permission (only on a document without signatures). */
  certify?: DocMdpPermission | undefined;
  /** The signature field to sign into (an existing empty one, or a new one on a page) and its appearance; default a new invisible field. */
  field?: { request: SignatureFieldRequest; appearance?: ((pdf: PDF, box: AppearanceBox) => PdfRef) | undefined } | undefined;
  /** When given, an RFC 3161 signature timestamp is added (PAdES B-T); its failure fails the signing. */
  timestamper?: Timestamper;
  /**
   * Called with the loaded document before the signature is placed (adds the certificate page),
   * only when the document holds no signature yet: a page added after an earlier signature would
   * invalidate it (ISO 32000-1 12.8.2.2; pyHanko's difference analysis classes it "other").
   */
  decorate?: (pdf: PDF, existing: ExistingPages, facts: InputFacts, file: PdfFile) => void | Promise<void>;
  /**
   * Called with the loaded document and the input read once (its PdfFile) before anything is added; returns the
   * complete audit record (JSON, written into the signature dictionary, so the signature covers
   * it) and the lines of the compact audit stamp drawn in a visible signature widget on the last
   * existing page, used instead of `decorate` when the document already holds signatures (and is
   * not certified: after a certification only an invisible signature field keeps the
   * certification). A function, since both list the signatures the document already holds.
   */
  describe?: (pdf: PDF, file: PdfFile, facts: InputFacts) => Promise<{ auditRecord?: string | undefined; stamp?: string[] | undefined }>;
  /** Rewrite an unsigned input that needs repair or is a hybrid-reference file (default false: refuse a damaged one). */
  rewriteUnsigned?: boolean | undefined;
  /** Pages a PDF may have (default DEFAULT_MAX_PDF_PAGES). */
  maxPages?: number | undefined;
  /** The password of an encrypted input (none: the empty user password); the update is encrypted with the document's key. */
  password?: string | undefined;
  /** Bytes reserved for the CMS in /Contents; computed from the chain and the timestamp when unset. */
  contentsBytes?: number;
  /**
   * A SHA-256 already fed with exactly `of` and not finished (ResolvedDocument.sha256State). When the
   * update is appended to `of` itself (no rewrite) and the signature's digest is SHA-256, a copy of
   * it continues over the appended bytes instead of hashing the whole output again.
   */
  inputHash?: { of: Buffer; hash: Hash } | undefined;
}

const A4 = { width: 595.28, height: 841.89 };

// A fixed-width placeholder: ten digits hold any offset of a file under 10 GB.
const PLACEHOLDER = 9_999_999_999;
const BYTE_RANGE_KEY = Buffer.from("/ByteRange [0 9999999999 9999999999 9999999999]", "latin1");

/**
 * loadPdf opens a PDF for an incremental update (the writer's parse and the PdfFile read; an encrypted one with its password), rejecting what cannot be signed safely:
 * encrypted files no password opens, unreadable ones, files without pages, and files whose structure had to be
 * rebuilt (an appended update would point into a broken cross-reference chain).
 */
export async function loadPdf(bytes: Uint8Array, maxPages?: number, password?: string): Promise<{ pdf: PDF; file: PdfFile }> {
  const { pdf, file } = await loadForUpdate(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), maxPages, false, password);
  return { pdf, file };
}

/** UpdateBase is a document opened for an incremental update: the bytes the update appends to, read once (file) and parsed by the writer (pdf). */
interface UpdateBase {
  pdf: PDF;
  /** The one Signet parse of `bytes`: what the signer knows about the input. */
  file: PdfFile;
  shape: PageTreeShape;
  /** What the update appends to: the input, or its clean rewrite. */
  bytes: Buffer;
  facts: InputFacts;
}

/**
 * rewriteOnce saves an unsigned document libpdf had to rebuild (or a hybrid-reference one) once as a
 * plain file and opens that file as the base; a rewrite that holds signatures (a damaged signed
 * file, seen only once rebuilt) is refused: it would void them.
 */
async function rewriteOnce(pdf: PDF, input: Buffer, file: PdfFile | undefined, maxPages: number | undefined): Promise<UpdateBase> {
  const damaged = file === undefined || pdf.recoveredViaBruteForce;
  const reason = damaged ? "repaired cross-reference" : "hybrid cross-reference made plain";
  if (damaged) restoreTrailerInfo(pdf, input, file);
  // libpdf hands back the original bytes when nothing changed: mark the catalog so it writes.
  pdf.getCatalog().set("Type", PdfName.of("Catalog"));
  let rewritten: Buffer;
  let base: UpdateBase;
  try {
    rewritten = Buffer.from(await pdf.save({ useXRefStream: false }));
    base = await loadForUpdate(rewritten, maxPages, false);
  } catch (error) {
    if (error instanceof SignetError) throw error;
    throw new SignetError("INVALID_DOCUMENT", "The PDF is damaged and Signet could not repair it; re-save it with a PDF tool, then send it again.", {
      cause: error,
    });
  }
  if (damaged && hasSignatures(base.file)) throw damagedSigned();
  return { ...base, facts: { rewritten: { reason, sha256: createHash("sha256").update(rewritten).digest("hex") } } };
}

const encryptedRewrite = () =>
  new SignetError(
    "INVALID_DOCUMENT",
    "The PDF is encrypted and its cross-reference structure would have to be rewritten before signing; remove the password with POST /v1/unprotect, then sign the result.",
  );

const damagedSigned = () =>
  new SignetError(
    "INVALID_DOCUMENT",
    "The PDF's cross-reference table is damaged and the PDF already holds signatures: repairing it would rewrite the file and void them. Ask its signers for an intact copy, or repair it before anyone signs it.",
  );

/**
 * loadForUpdate reads the input once (PdfFile: encryption, page limit, hybrid, signatures, page
 * tree) and parses it with the writer (libpdf). Its page tree as readers see it (readPageTree)
 * counts for the limit and for "no pages", and a tree with a loop is refused (signing would keep
 * it). With `rewrite`, an unsigned document whose chain does not read as written (or that libpdf
 * had to rebuild) or a hybrid-reference one is saved once as a plain file and that file is the
 * base; a signed one that needs repair is refused (a rewrite would void its signatures), a signed
 * hybrid one is kept.
 */
async function loadForUpdate(input: Buffer, maxPages: number | undefined, rewrite = false, password?: string): Promise<UpdateBase> {
  const read = readPdfFile(input, maxPages, password);
  // A chain Signet had to recover is not trusted for what the input holds: libpdf repairs, and the rewrite is read again.
  const file = read?.recovered ? undefined : read;
  const pdf = await loadForWriting(input, file, maxPages, password);
  const damaged = file === undefined || pdf.recoveredViaBruteForce;
  if (pdf.isEncrypted && (damaged || file.hybrid)) throw encryptedRewrite();
  const hybrid = !damaged && file.hybrid;
  const facts: InputFacts = {};
  if (damaged || hybrid) {
    if (file !== undefined && damaged && hasSignatures(file)) throw damagedSigned();
    if (damaged) {
      // Whether a file whose chain does not read holds signatures shows once it is repaired (rewriteOnce refuses then).
      const base = file === undefined || rewrite ? await rewriteOnce(pdf, input, file, maxPages) : undefined;
      if (!rewrite || !base)
        throw new SignetError("INVALID_DOCUMENT", "The PDF's cross-reference table is damaged; re-save it with a PDF tool, then send it again.");
      return base;
    }
    if (!hasSignatures(file) && rewrite) return rewriteOnce(pdf, input, file, maxPages);
    facts.hybridKept = true;
  }
  if (!file) throw new SignetError("INVALID_DOCUMENT", "The PDF's cross-reference table is damaged; re-save it with a PDF tool, then send it again.");
  const shape = file.pageTree;
  if (shape.loop) throw pageTreeLoopError(shape.loop);
  if (shape.pages.length === 0) throw new SignetError("INVALID_DOCUMENT", "The PDF has no pages.");
  return { pdf, file, shape, bytes: input, facts };
}

/**
 * restoreTrailerInfo gives a document libpdf rebuilt by brute force (its trailer then holds only
 * /Root and /Size) the /Info and /ID of the file's trailer (the PdfFile's, else the last `trailer`
 * dictionary in the bytes), when they name objects that exist, so its rewrite keeps the title and
 * the permanent identifier.
 */
function restoreTrailerInfo(pdf: PDF, bytes: Buffer, file: PdfFile | undefined): void {
  const values = file ? fileTrailerValues(file) : lastTrailerValues(bytes);
  const trailer = trailerOf(pdf);
  if (values.info && !trailer.has("Info") && pdf.getObject(values.info) instanceof PdfDict) trailer.set("Info", values.info);
  if (values.id && !trailer.has("ID")) trailer.set("ID", new PdfArray(values.id.map((part) => new PdfString(part.bytes, "hex"))));
}

// Room for what a measured CMS cannot know in advance: ECDSA signature values vary by a few bytes.
const CONTENTS_MARGIN = 64;
// A TSA token carries the TSA's certificates; before the first token from a timestamper is seen,
// reserve this much. After that, the largest token seen plus TOKEN_MARGIN.
const FIRST_TOKEN_BOUND = 16_384;
const TOKEN_MARGIN = 1_024;
const tokenSizes = new WeakMap<Timestamper, number>();
// The measured CMS size per identity (measured without a signature: no KMS request).
const cmsSizes = new WeakMap<SigningIdentity, number>();

/**
 * contentsSize is the space reserved for the CMS in /Contents: a CMS of the same shape (same
 * chain, attributes and key) made over a dummy digest, a small margin, and a bound for the
 * timestamp token.
 */
async function contentsSize(options: PadesSignOptions): Promise<number> {
  if (options.contentsBytes) return options.contentsBytes;
  let cms = cmsSizes.get(options.identity);
  if (cms === undefined) {
    cms = measureCadesSignature(options.identity);
    cmsSizes.set(options.identity, cms);
  }
  const measured = cms + CONTENTS_MARGIN;
  if (!options.timestamper) return measured;
  const seen = tokenSizes.get(options.timestamper);
  return measured + (seen === undefined ? FIRST_TOKEN_BOUND : seen + TOKEN_MARGIN);
}

/** ContentsOverflowError says the CMS did not fit the reserved space (a TSA's token grew). */
class ContentsOverflowError extends Error {
  constructor(
    readonly needed: number,
    reserved: number,
  ) {
    super(`the CMS signature needs ${needed} bytes but only ${reserved} were reserved`);
  }
}

/** uniqueFieldName picks a signature field name not used in the document yet. */
function uniqueFieldName(pdf: PDF): string {
  const names = new Set(
    pdf
      .getOrCreateForm()
      .getFields()
      .map((field) => field.name),
  );
  for (let index = 1; ; index++) if (!names.has(`Signet_${index}`)) return `Signet_${index}`;
}

function pdfDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `D:${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
}

/** AUDIT_RECORD_KEY names the signature dictionary entry holding the signer's complete audit record (JSON). */
export const AUDIT_RECORD_KEY = "Signet_AuditRecord";

/** SignatureTarget says where the new signature's widget goes and whether it shows the audit stamp. */
interface SignatureTarget {
  /** The widget's page: the new certificate page, or the last existing page; null when no page can list it (every page direct). */
  page: PDFPage | null;
  /** Lines of a visible audit stamp; the widget is invisible (zero-size) when absent. */
  stamp?: string[];
}

/** winAnsiText makes text the standard Helvetica (WinAnsiEncoding) can show: accents dropped, other characters as "?". */
function winAnsiText(value: string): string {
  const plain = value.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  return [...plain]
    .map((char) => (char.charCodeAt(0) >= 0x20 && char.charCodeAt(0) <= 0x7e ? char : "?"))
    .join("")
    .replace(/[\\()]/g, (char) => `\\${char}`);
}

// Lower left, above the footer band of Signet's own certificate page (its rule is at 48 pt).
const STAMP = { width: 300, lineHeight: 9, fontSize: 7, padding: 6, inset: 18, bottom: 56 };

/** stampAppearance draws the compact audit stamp: a framed box of short lines in Helvetica. */
function stampAppearance(lines: string[], width: number): { stream: PdfStream; height: number } {
  const height = STAMP.padding * 2 + lines.length * STAMP.lineHeight;
  const text = lines
    .map(
      (line, index) =>
        `${index === 0 ? `${STAMP.padding} ${height - STAMP.padding - STAMP.fontSize} Td` : `0 -${STAMP.lineHeight} Td`} (${winAnsiText(line)}) Tj`,
    )
    .join("\n");
  const content = [
    "q 0.97 0.98 1 rg 0 0 " + `${width} ${height} re f`,
    `0.11 0.3 0.55 RG 0.8 w 0.4 0.4 ${width - 0.8} ${height - 0.8} re S Q`,
    `q 0 0 ${width} ${height} re W n BT /Helv ${STAMP.fontSize} Tf 0.11 0.13 0.17 rg`,
    text,
    "ET Q",
  ].join("\n");
  const stream = PdfStream.fromDict(
    {
      Type: PdfName.of("XObject"),
      Subtype: PdfName.of("Form"),
      BBox: new PdfArray([PdfNumber.of(0), PdfNumber.of(0), PdfNumber.of(width), PdfNumber.of(height)]),
      Resources: PdfDict.of({
        Font: PdfDict.of({
          Helv: PdfDict.of({
            Type: PdfName.of("Font"),
            Subtype: PdfName.of("Type1"),
            BaseFont: PdfName.of("Helvetica"),
            Encoding: PdfName.of("WinAnsiEncoding"),
          }),
        }),
      }),
    },
    new TextEncoder().encode(content),
  );
  return { stream, height };
}

/**
 * placeSignatureField adds the signature dictionary and its widget (field and widget merged) on
 * the target page, listed in that page's /Annots (ISO 32000-1 12.5.2): zero-size and invisible,
 * or a visible audit stamp in the page's lower left corner; with `options.field`, the field asked
 * for instead (signature-field.ts). A certification's dictionary carries its DocMDP /Reference and
 * the catalog's /Perms names it.
 */
function placeSignatureField(
  pdf: PDF,
  options: PadesSignOptions,
  reserved: number,
  target: SignatureTarget,
  auditRecord: string | undefined,
  file: PdfFile,
): void {
  // A field with a /Lock: the signature records it (FieldMDP), and its /P bounds a certification.
  const name = options.field?.request.name ?? uniqueFieldName(pdf);
  checkLocksAllowSignature(documentLocks(file), name);
  const asked = options.field?.request;
  const lock = asked && asked.page === undefined ? fieldLockOf(file, name) : asked?.lock;
  const certify = lockedCertification(options.certify, lock);
  const signature = PdfDict.of({
    Type: PdfName.of("Sig"),
    Filter: PdfName.of("Adobe.PPKLite"),
    SubFilter: PdfName.of("ETSI.CAdES.detached"),
    ByteRange: new PdfArray([PdfNumber.of(0), PdfNumber.of(PLACEHOLDER), PdfNumber.of(PLACEHOLDER), PdfNumber.of(PLACEHOLDER)]),
    // An encrypted document's signature /Contents is written in the clear (ISO 32000-2 7.6.2).
    Contents: pdf.isEncrypted ? clearHexPlaceholder(reserved) : new PdfString(new Uint8Array(reserved), "hex"),
    M: PdfString.fromString(pdfDate(options.signingTime)),
    Name: PdfString.fromString(options.signerName),
    Reason: PdfString.fromString(options.reason),
    ...(options.contactInfo ? { ContactInfo: PdfString.fromString(options.contactInfo) } : {}),
    ...(options.location ? { Location: PdfString.fromString(options.location) } : {}),
    ...signatureReferences(certify ? docMdpReference(certify) : undefined, lock, trailerOf(pdf).get("Root")),
    ...(auditRecord ? { [AUDIT_RECORD_KEY]: PdfString.fromString(auditRecord) } : {}),
  });
  const signatureRef = pdf.register(signature);
  if (certify) declareCertification(pdf, signatureRef);
  if (options.field) {
    const { request, appearance } = options.field;
    placeInField(pdf, file, request, signatureRef, name, appearance && ((box) => appearance(pdf, box)));
    return;
  }
  const form = pdf.getOrCreateForm();
  const field = form.createSignatureField(name);
  const fieldDict = field.getDict();
  const { page } = target;
  fieldDict.delete("Kids");
  fieldDict.set("V", signatureRef);
  fieldDict.set("Type", PdfName.of("Annot"));
  fieldDict.set("Subtype", PdfName.of("Widget"));
  fieldDict.set("F", PdfNumber.of(132)); // print, locked
  if (page) fieldDict.set("P", page.ref);
  let rect = [0, 0, 0, 0];
  if (target.stamp && page) {
    const box = page.getCropBox();
    const width = Math.min(STAMP.width, Math.max(40, box.width - 2 * STAMP.inset));
    const { stream, height } = stampAppearance(target.stamp, width);
    const x = box.x + Math.min(STAMP.inset, box.width / 10);
    const y = box.y + Math.min(STAMP.bottom, box.height / 10);
    rect = [x, y, x + width, y + height];
    fieldDict.set("AP", PdfDict.of({ N: pdf.register(stream) }));
  }
  fieldDict.set("Rect", new PdfArray(rect.map((value) => PdfNumber.of(Math.round(value * 100) / 100))));
  const fieldRef = fieldRefOf(field);
  if (!fieldRef || !page) return;
  const resolve = (ref: PdfRef) => pdf.getObject(ref);
  const annots = page.dict.getArray("Annots", resolve);
  if (annots) annots.push(fieldRef);
  else page.dict.set("Annots", new PdfArray([fieldRef]));
}

/** pdfVersion is the document's effective version: the header's, raised by a catalog /Version. */
function pdfVersion(pdf: PDF): number {
  const header = Number.parseFloat(pdf.version) || 1.4;
  const catalog = Number.parseFloat(pdf.getCatalog().getName("Version")?.value ?? "");
  return Number.isFinite(catalog) ? Math.max(header, catalog) : header;
}

/**
 * declareEtsiExtension marks a PDF 1.x document as using the ETSI PAdES extension (ESIC
 * developer extension, ExtensionLevel 2, BaseVersion 1.7, ETSI EN 319 142-1 5.4), as PAdES
 * writers do; a document below 1.7 also gets catalog /Version 1.7 (the header stays as it is:
 * an incremental update keeps every earlier byte).
 */
function declareEtsiExtension(pdf: PDF): void {
  const version = pdfVersion(pdf);
  if (version >= 2) return;
  const catalog = pdf.getCatalog();
  const resolve = (ref: PdfRef) => pdf.getObject(ref);
  if (version < 1.7) catalog.set("Version", PdfName.of("1.7"));
  const extensions = catalog.getDict("Extensions", resolve);
  if (extensions?.has("ESIC")) return;
  const esic = PdfDict.of({ BaseVersion: PdfName.of("1.7"), ExtensionLevel: PdfNumber.of(2) });
  if (extensions) extensions.set("ESIC", esic);
  else catalog.set("Extensions", PdfDict.of({ ESIC: esic }));
}

/**
 * updateFileId keeps the first half of the trailer /ID (the document's permanent identifier) and
 * gives the second half a new value for this version (ISO 32000-1 14.4): derived from the input's
 * length and last bytes (its latest trailer) and the signing time, without hashing the whole file.
 */
function updateFileId(pdf: PDF, input: Buffer, signingTime: Date): void {
  const trailer = trailerOf(pdf);
  const ids = trailer.getArray("ID");
  const permanent = ids?.at(0);
  if (!(permanent instanceof PdfString)) return;
  const changing = createHash("sha256")
    .update(permanent.bytes)
    .update(`${input.length}:${signingTime.toISOString()}`)
    .update(input.subarray(Math.max(0, input.length - 4096)))
    .digest()
    .subarray(0, 16);
  trailer.set("ID", new PdfArray([permanent, new PdfString(new Uint8Array(changing), "hex")]));
}

/** hasSignatures tells whether a document already holds a signed signature field or a certification (read from its PdfFile). */
export function hasSignatures(file: PdfFile): boolean {
  if (readCertification(file.latest) !== undefined) return true;
  return readForm(file.latest).fields.some((field) => field.signed);
}

/**
 * compressNewStreams deflates the streams this update adds (font subsets, their ToUnicode maps,
 * page content) with node's native zlib; libpdf would do it with pako in JavaScript, which costs
 * more time and garbage than everything else in a one-page signing. Font subsets and their maps
 * repeat from one signing to the next, so their compressed form is remembered (see deflated).
 */
function compressNewStreams(pdf: PDF): void {
  pdf.fonts.finalize(true);
  for (const object of newObjectsOf(pdf).values()) {
    if (!(object instanceof PdfStream) || object.has("Filter") || object.data.length < 256) continue;
    const compressed = deflated(object.data);
    if (compressed.length >= object.data.length) continue;
    object.setData(compressed);
    object.set("Filter", PdfName.of("FlateDecode"));
  }
}

// Compressed streams by the SHA-256 of their data, oldest first; bounded in entries and bytes.
const deflateCache = new Map<string, Buffer>();
const DEFLATE_CACHE_ENTRIES = 256;
const DEFLATE_CACHE_MAX_STREAM = 64 * 1024; // at most 16 MB held

/** deflated compresses data (level 6), answering from the cache when the same bytes were compressed before. */
function deflated(data: Uint8Array): Buffer {
  if (data.length > DEFLATE_CACHE_MAX_STREAM) return deflateSync(data, { level: 6 });
  const key = createHash("sha256").update(data).digest("base64");
  let compressed = deflateCache.get(key);
  if (compressed) {
    deflateCache.delete(key); // most recently used last
  } else {
    compressed = deflateSync(data, { level: 6 });
    if (deflateCache.size >= DEFLATE_CACHE_ENTRIES) deflateCache.delete(deflateCache.keys().next().value!);
  }
  deflateCache.set(key, compressed);
  return compressed;
}

/**
 * signPdf adds a PAdES baseline B-B signature (B-T with a timestamper) to a PDF as an incremental
 * update: every input byte is kept as a prefix of the output, so earlier signatures stay valid.
 * An unsigned document is first passed to `decorate` (the audit trail certificate page), so the
 * signature covers it; a document that already holds signatures gets no page (it would void them)
 * and its new widget shows `stamp` instead (invisible after a certification). The output is checked before it is returned: prefix kept, placeholders
 * found once in the appended part, the CMS fits its reserved space.
 */
export async function signPdf(input: Buffer, options: PadesSignOptions): Promise<Buffer> {
  return (await signPdfWithFacts(input, options)).signed;
}

/** signPdfWithFacts is signPdf that also says what it did with the input (InputFacts). */
export async function signPdfWithFacts(input: Buffer, options: PadesSignOptions): Promise<{ signed: Buffer; facts: InputFacts }> {
  try {
    return await signOnce(input, options);
  } catch (error) {
    // A token larger than the ones seen before: sign again once with room for it (a new TSA request).
    if (!(error instanceof ContentsOverflowError) || !options.timestamper || options.contentsBytes) throw error;
    return signOnce(input, { ...options, contentsBytes: error.needed + FIRST_TOKEN_BOUND });
  }
}

/**
 * byteRangeDigest is the digest the signature covers: the output but its /Contents. The output
 * starts with the input (checked by the caller) and /Contents lies after it, so with a hash state of
 * the input (inputHash) only the appended part is hashed.
 */
function byteRangeDigest(output: Buffer, input: Buffer, contentsStart: number, contentsEnd: number, options: PadesSignOptions): Buffer {
  const algorithm = documentHash(options.identity);
  const known = options.inputHash;
  if (known && known.of === input && algorithm === "sha256" && contentsStart >= input.length) {
    return known.hash.copy().update(output.subarray(input.length, contentsStart)).update(output.subarray(contentsEnd)).digest();
  }
  return createHash(algorithm).update(output.subarray(0, contentsStart)).update(output.subarray(contentsEnd)).digest();
}

async function signOnce(received: Buffer, options: PadesSignOptions): Promise<{ signed: Buffer; facts: InputFacts }> {
  const { pdf, file, shape, bytes: input, facts } = await loadForUpdate(received, options.maxPages, options.rewriteUnsigned, options.password);
  const certification = readCertification(file.latest);
  if (certification?.permission === 1) {
    throw new SignetError(
      "INVALID_DOCUMENT",
      "The document is certified against changes; adding a signature would invalidate its certification. Send the document before it was certified, or ask its author for a certification that allows signing.",
    );
  }
  // libpdf refuses incremental saves of linearized files; an appended update is valid PDF there
  // (it only ends the fast-web-view optimisation), and a full rewrite would break earlier signatures.
  allowIncrementalOnLinearized(pdf);
  // A lock's /P (ISO 32000-2) limits later changes as a certification does: no new visible widget.
  const certified = certification !== undefined || lockPermission(documentLocks(file)) !== undefined;
  const alreadySigned = hasSignatures(file);
  if (options.certify && alreadySigned) throw certificationNotFirst();
  const described = options.describe ? await options.describe(pdf, file, facts) : {};
  // The certificate pages are new kids of the root /Pages node; the existing tree stays as it is.
  const lastExisting = lastIndirectPage(pdf, shape);
  const decorated = options.decorate !== undefined && !alreadySigned && prepareForNewPages(pdf, shape);
  if (options.decorate !== undefined && !alreadySigned && !decorated) {
    facts.certificatePageLeftOut = shape.rootRef
      ? "the page tree holds direct page dictionaries, after which some readers show no page"
      : "the catalog's /Pages is not an indirect object";
  }
  if (decorated) {
    const box = lastExisting && shape.pages.at(-1)!.ref === lastExisting.ref ? lastExisting : null;
    await options.decorate!(pdf, { pages: shape.pages.length, lastPage: box ? { width: box.width, height: box.height } : A4 }, facts, file);
  }
  const reserved = await contentsSize(options);
  const page = decorated ? pdf.getPage(pdf.getPageCount() - 1) : lastExisting;
  // After a certification pyHanko (stricter than Acrobat) accepts only invisible new signature fields.
  // Without a certificate page (already signed, or no root to add it to) the widget shows the stamp.
  const stamp = !decorated && !certified ? described.stamp : undefined;
  placeSignatureField(pdf, options, reserved, { page, ...(stamp ? { stamp } : {}) }, described.auditRecord, file);
  declareEtsiExtension(pdf);
  updateFileId(pdf, input, options.signingTime);
  const blocker = pdf.canSaveIncrementally();
  if (blocker) throw new SignetError("INVALID_DOCUMENT", `The PDF cannot take an incremental update (${blocker}); re-save it, then send it again.`);

  compressNewStreams(pdf);
  const saved = await pdf.save({ incremental: true, subsetFonts: true, compressStreams: false });
  const output = Buffer.from(saved.buffer, saved.byteOffset, saved.byteLength);
  if (output.length <= input.length || output.compare(input, 0, input.length, 0, input.length) !== 0) {
    throw new Error("the PDF writer did not keep the input as a prefix of the output");
  }

  const keyAt = output.lastIndexOf(BYTE_RANGE_KEY);
  if (keyAt < input.length) throw new Error("the signature placeholder was not written");
  const rangeStart = keyAt + "/ByteRange ".length;
  const rangeLength = BYTE_RANGE_KEY.length - "/ByteRange ".length;
  const contentsKey = output.indexOf("/Contents <", keyAt, "latin1");
  if (contentsKey < 0) throw new Error("the /Contents placeholder was not written");
  const contentsStart = contentsKey + "/Contents ".length; // at '<'
  const contentsEnd = output.indexOf(">", contentsStart, "latin1") + 1; // after '>'
  if (contentsEnd - contentsStart !== reserved * 2 + 2) throw new Error("the /Contents placeholder has an unexpected size");

  const byteRange = [0, contentsStart, contentsEnd, output.length - contentsEnd];
  const rangeText = `[${byteRange.join(" ")}]`.padEnd(rangeLength, " ");
  output.write(rangeText, rangeStart, "latin1");

  const digest = byteRangeDigest(output, input, contentsStart, contentsEnd, options);
  const cms = await createCadesSignature(options.identity, digest);
  if (options.timestamper) {
    const token = await options.timestamper.timestamp(cms.signatureValue);
    tokenSizes.set(options.timestamper, Math.max(token.length, tokenSizes.get(options.timestamper) ?? 0));
    cms.addTimestampToken(token);
  }
  const der = cms.toDer();
  if (der.length > reserved) throw new ContentsOverflowError(der.length, reserved);
  output.write(der.toString("hex").toUpperCase(), contentsStart + 1, "latin1");
  return { signed: output, facts };
}
