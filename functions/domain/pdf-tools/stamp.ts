// POST /v1/stamp: text and/or a picture on chosen pages of a PDF, over or under the content. An
// unsigned PDF gets it in the page content (one form XObject painted by each page); a PDF whose
// certification allows annotations (DocMDP P=3) gets /Stamp annotations in an incremental update,
// which its signatures permit; any other signed PDF is 409 unless the signatures are dropped.
import { type PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfRef, PdfStream, PdfString } from "@libpdf/core";
import { DocumentFonts, type FontFiles } from "#domain/pdf-text/fonts.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import { readCertification } from "#domain/pdf/docmdp.ts";
import { lockPermission, signatureLocks, strictestPermission } from "#domain/pdf/field-lock.ts";
import { allowIncrementalOnLinearized } from "#domain/pdf/libpdf-internals.ts";
import { loadForWriting, openPdfFile } from "#domain/pdf/open-pdf.ts";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
import { pageTreeLoopError } from "#domain/pdf/page-tree.ts";
import { type ImageLoadDeps, loadImage } from "#domain/pictures/load.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { TimeSlice } from "#domain/shared/time-slice.ts";
import { drawStampForm, round, setMatrix, type StampForm, type StampLook, type StampText } from "#domain/pdf-tools/stamp-form.ts";
import { type PageBox, parsePageRanges, placeStamp, type StampPosition } from "#domain/pdf-tools/stamp-placement.ts";
import { dropSignatures, signedSignatures, wouldInvalidate } from "#domain/pdf-tools/signatures.ts";
import { saveUpdate, type ToolResult } from "#domain/pdf-tools/stamp-save.ts";
import { checkMayChange } from "#domain/pdf-tools/permissions.ts";

/** StampRequest is a validated POST /v1/stamp body (docs/api.md, "Stamp and watermark"). */
export interface StampRequest {
  text?: StampText | undefined;
  /** A picture as a data URI or URL, drawn `width` points wide (default its size at 96 dpi), height kept in proportion unless given. */
  image?: { value: string; width?: number | undefined; height?: number | undefined } | undefined;
  opacity: number;
  /** Degrees counter-clockwise, as the page is viewed. */
  rotation: number;
  position: StampPosition;
  /** Page ranges ("1-3,5,8-"); every page when absent. */
  pages?: string | undefined;
  layer: "over" | "under";
  /** "content" writes into the pages, "annotation" adds /Stamp annotations, "auto" picks by the signatures. */
  as: "auto" | "content" | "annotation";
  dropSignatures: boolean;
}

/** StampDeps are what stamping needs: the bundled fonts, the picture loader's and the page limit. */
export interface StampDeps {
  fonts: () => FontFiles;
  images: ImageLoadDeps;
  maxPages: number;
}

/** StampResult is the stamped PDF, how the stamp was written, on how many pages, and the signatures removed. */
export interface StampResult extends ToolResult {
  mode: "content" | "annotation";
  pages: number;
}

// A picture's pixels at 96 dpi, in points.
const PX = 0.75;

async function stampLook(request: StampRequest, deps: StampDeps): Promise<StampLook> {
  if (!request.image) return { text: request.text, opacity: request.opacity };
  const image = await loadImage(request.image.value, "image", deps.images);
  if (image.info.format !== "png" && image.info.format !== "jpeg") {
    throw new SignetError("INVALID_IMAGE", "image must be a PNG, JPEG, SVG or WebP picture; a GIF cannot be drawn on a PDF page.", {
      details: [{ field: "image.value", issue: `a ${image.info.format.toUpperCase()} picture` }],
    });
  }
  const ratio = image.info.height / Math.max(image.info.width, 1);
  const width = request.image.width ?? (request.image.height ? request.image.height / ratio : image.info.width * PX);
  const height = request.image.height ?? width * ratio;
  return { text: request.text, opacity: request.opacity, picture: { bytes: image.bytes, width, height } };
}

/**
 * stampMode decides how the stamp is written and refuses what would break a signature. After a
 * signature, only a certification with DocMDP P=3 permits new annotations (Signet's verify, as
 * ISO 32000-1 12.8.2.2; without one a new annotation could cover what was signed); page content
 * (asked for, or needed for `under`) is never permitted. A refusal is 409
 * WOULD_INVALIDATE_SIGNATURES unless the request drops the signatures.
 */
function stampMode(file: PdfFile, request: StampRequest): { mode: StampResult["mode"]; drop: boolean } {
  const signatures = signedSignatures(file);
  const wanted = request.as === "annotation" ? "annotation" : "content";
  if (signatures.length === 0) return { mode: wanted, drop: false };
  if (request.dropSignatures) return { mode: wanted, drop: true };
  const permission = stampPermission(file);
  if (permission !== 3) {
    const why = permission
      ? `the certification allows ${permission === 1 ? "no changes" : "form filling only"}`
      : "a signature without a certification allowing annotations (DocMDP P=3) permits no new annotation";
    throw wouldInvalidate(signatures, `a stamp (${why})`);
  }
  if (request.as === "content") throw wouldInvalidate(signatures, "a stamp in the page content");
  if (request.layer === "under") throw wouldInvalidate(signatures, 'a stamp under the content (an annotation is drawn over it: send "layer": "over")');
  return { mode: "annotation", drop: false };
}

/**
 * stampPermission is what the document's signatures permit after them: the certification's DocMDP
 * level, lowered by any signature's field lock /P (ISO 32000-2 12.8.2.4: a lock can deny, never
 * add; verify judges the locking signature against the stricter one). No certification: none.
 */
function stampPermission(file: PdfFile): number | undefined {
  const certified = readCertification(file.latest)?.permission;
  if (certified === undefined) return undefined;
  return strictestPermission(certified, lockPermission(signatureLocks(file.latest, readForm(file.latest, file.pageTree))));
}

function openForStamp(bytes: Buffer, maxPages: number, password: string | undefined): PdfFile {
  const file = openPdfFile(bytes, { maxPages, password });
  const shape = file.pageTree;
  if (shape.loop) throw pageTreeLoopError(shape.loop);
  if (shape.pages.length === 0) throw new SignetError("INVALID_DOCUMENT", "The PDF has no pages.");
  return file;
}

/**
 * stampPdf runs POST /v1/stamp on a PDF's bytes (see the file comment). An encrypted PDF opens with
 * `password` and stays encrypted: libpdf writes the stamp with the document's own key.
 */
export async function stampPdf(bytes: Buffer, request: StampRequest, deps: StampDeps, password?: string): Promise<StampResult> {
  const look = await stampLook(request, deps);
  const file = openForStamp(bytes, deps.maxPages, password);
  const { mode, drop } = stampMode(file, request);
  const pages = parsePageRanges(request.pages, file.pageTree.pages.length);
  const pdf = await loadForWriting(bytes, file, deps.maxPages, password);
  checkMayChange(pdf, "stamps it");
  allowIncrementalOnLinearized(pdf);
  const dropped = drop ? dropSignatures(pdf, file) : [];
  const form = drawStampForm(pdf, new DocumentFonts(pdf, deps.fonts()), look);
  const painter = mode === "content" ? new ContentPainter(pdf, form, request.layer) : new AnnotationPainter(pdf, form);
  const slice = new TimeSlice();
  for (const index of pages) {
    const page = pdf.getPage(index);
    if (!page) throw new SignetError("INVALID_DOCUMENT", `The PDF's page ${index + 1} could not be read; re-save it, then send it again.`);
    const box = { ...page.getCropBox(), rotate: page.rotation } satisfies PageBox;
    painter.paint(page, placeStamp(box, form, request.position, request.rotation), box.rotate);
    if (slice.due()) await slice.pause();
  }
  // A signed input keeps its bytes (an update its signatures permit); an unsigned one is written
  // whole, so the stamp is not an update anyone can cut off to get the unstamped file back.
  const saved = await saveUpdate(pdf, bytes, { incremental: mode === "annotation" && !drop });
  return { ...saved, mode, pages: pages.length, droppedSignatures: dropped };
}

type PageLike = NonNullable<ReturnType<PDF["getPage"]>>;

/** ownResources is a page's own /Resources dictionary: an inherited one is copied onto the page first (libpdf would start an empty one). */
function ownResources(pdf: PDF, page: PageLike): PdfDict {
  const resolve = (value: unknown) => (value instanceof PdfRef ? pdf.getObject(value) : value);
  const own = resolve(page.dict.get("Resources"));
  if (own instanceof PdfDict) return own;
  let parent = resolve(page.dict.get("Parent"));
  for (let depth = 0; parent instanceof PdfDict && depth < 64; depth++) {
    const inherited = resolve(parent.get("Resources"));
    if (inherited instanceof PdfDict) break;
    parent = resolve(parent.get("Parent"));
  }
  const inherited = parent instanceof PdfDict ? resolve(parent.get("Resources")) : undefined;
  const copy = new PdfDict();
  if (inherited instanceof PdfDict) for (const [key, value] of inherited) copy.set(key.value, value);
  page.dict.set("Resources", copy);
  return copy;
}

/** addXObject names `ref` in the page's /XObject resources, reusing the name when it is already there. */
function addXObject(pdf: PDF, page: PageLike, ref: PdfRef): string {
  const resources = ownResources(pdf, page);
  let group = resources.get("XObject");
  if (group instanceof PdfRef) group = pdf.getObject(group) ?? undefined;
  if (!(group instanceof PdfDict)) {
    group = new PdfDict();
    resources.set("XObject", group);
  }
  const names = group as PdfDict;
  for (const [name, value] of names) if (value instanceof PdfRef && value.objectNumber === ref.objectNumber) return name.value;
  let name = "SignetStamp";
  for (let n = 1; names.has(name); n++) name = `SignetStamp${n}`;
  names.set(name, ref);
  return name;
}

/** ContentPainter paints the stamp's form in each page's content, over (after a q/Q around the page's own) or under it. */
class ContentPainter {
  readonly #streams = new Map<string, PdfRef>();

  constructor(
    private readonly pdf: PDF,
    private readonly form: StampForm,
    private readonly layer: "over" | "under",
  ) {}

  /** stream is a content stream of these bytes, one per distinct text (1,000 pages of one size share one). */
  #stream(content: string): PdfRef {
    let ref = this.#streams.get(content);
    if (!ref) {
      ref = this.pdf.register(PdfStream.fromDict({}, new TextEncoder().encode(content)));
      this.#streams.set(content, ref);
    }
    return ref;
  }

  paint(page: PageLike, placement: ReturnType<typeof placeStamp>, _rotate?: number): void {
    const name = addXObject(this.pdf, page, this.form.ref);
    const paint = this.#stream(`q ${placement.matrix.map(round).join(" ")} cm /${name} Do Q\n`);
    const existing = this.#contents(page);
    const contents = this.layer === "under" ? [paint, ...existing] : [this.#stream("q\n"), ...existing, this.#stream("\nQ\n"), paint];
    page.dict.set("Contents", new PdfArray(contents));
  }

  #contents(page: PageLike): Array<PdfRef | PdfStream> {
    const value = page.dict.get("Contents");
    const resolved = value instanceof PdfRef ? this.pdf.getObject(value) : value;
    if (resolved instanceof PdfArray) return resolved.toArray().filter((item): item is PdfRef => item instanceof PdfRef);
    if (value instanceof PdfRef) return [value];
    return [];
  }
}

/** AnnotationPainter adds a /Stamp annotation showing the form on each page (one appearance per page rotation). */
class AnnotationPainter {
  readonly #appearances = new Map<number, PdfRef>();

  constructor(
    private readonly pdf: PDF,
    private readonly form: StampForm,
  ) {}

  /** appearance is the form turned for pages of this /Rotate: a form of its own painting the stamp (its /Matrix turns it). */
  #appearance(placement: ReturnType<typeof placeStamp>, rotate: number): PdfRef {
    let ref = this.#appearances.get(rotate);
    if (!ref) {
      const { width, height } = this.form;
      const stream = PdfStream.fromDict(
        {
          Type: PdfName.of("XObject"),
          Subtype: PdfName.of("Form"),
          BBox: new PdfArray([0, 0, width, height].map((value) => PdfNumber.of(round(value)))),
          Resources: PdfDict.of({ XObject: PdfDict.of({ Stamp: this.form.ref }) }),
        },
        new TextEncoder().encode("/Stamp Do\n"),
      );
      setMatrix(stream, [...placement.matrix.slice(0, 4), 0, 0]);
      ref = this.pdf.register(stream);
      this.#appearances.set(rotate, ref);
    }
    return ref;
  }

  paint(page: PageLike, placement: ReturnType<typeof placeStamp>, rotate: number): void {
    const annotation = PdfDict.of({
      Type: PdfName.of("Annot"),
      Subtype: PdfName.of("Stamp"),
      Rect: new PdfArray(placement.rect.map((value) => PdfNumber.of(round(value)))),
      F: PdfNumber.of(4), // print
      P: page.ref,
      Contents: PdfString.fromString(this.form.text || "Stamp"),
      AP: PdfDict.of({ N: this.#appearance(placement, rotate) }),
    });
    const ref = this.pdf.register(annotation);
    const annots = page.dict.getArray("Annots", (value: PdfRef) => this.pdf.getObject(value));
    if (annots) annots.push(ref);
    else page.dict.set("Annots", new PdfArray([ref]));
  }
}
