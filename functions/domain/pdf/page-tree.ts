import { type PDF, PDFPage, PdfArray, PdfDict, PdfName, PdfNumber, PdfRef } from "@libpdf/core";
import { SignetError } from "#domain/shared/errors.ts";
import { pageTreeOf } from "#domain/pdf/libpdf-internals.ts";
import type { PdfView } from "#domain/pdf/pdf-file.ts";

/**
 * Signet reads the page tree itself, the way qpdf, poppler and MuPDF do, because libpdf 0.4.2
 * skips what they show (direct page dictionaries among /Kids, nodes without /Type) and its
 * addPage flattens the whole tree. Signet never rewrites the existing tree: certificate pages
 * become new kids of the root /Pages node, and a catalog /Pages that points at a page gets a new
 * root over that page (ISO 32000-1 7.7.3). A tree with direct page dictionaries gets no page.
 * The tree is read from a view of the file (PdfFile); the writer's functions below take the
 * references it found and change libpdf's objects for them.
 */

/** PageEntry is one page in document order: its reference, or null for a direct page dictionary. */
export interface PageEntry {
  ref: PdfRef | null;
  dict: PdfDict;
}

/** PageTreeShape is what a reader finds from the catalog's /Pages. */
export interface PageTreeShape {
  /** The catalog's /Pages when it is a reference to a dictionary. */
  rootRef: PdfRef | null;
  /** The catalog's /Pages is a page, not a /Pages node (poppler shows it; qpdf and MuPDF count 0). */
  rootIsPage: boolean;
  /** Every page in document order, as the readers count them. */
  pages: PageEntry[];
  /** Set when a /Pages node is reached twice: how (a tree with a loop cannot be signed). */
  loop: string | null;
}

// Deeper than any real tree (writers balance theirs at a few levels); bounds the recursion.
const MAX_DEPTH = 256;

const key = (ref: PdfRef) => `${ref.objectNumber} ${ref.generation}`;

/** isPagesNode classes a page tree dictionary as readers do: /Type first, else /Kids makes a node (the one rule, for the signer and the modification analysis). */
export function isPagesNode(dict: PdfDict): boolean {
  const type = dict.getName("Type")?.value;
  if (type === "Pages") return true;
  if (type === "Page") return false;
  return dict.has("Kids");
}

/**
 * readPageTree walks the page tree from the catalog's /Pages: direct kids count, nodes without
 * /Type are classed by /Kids, a node reached twice is a loop (reported, not followed), and the walk
 * stops after `limit` pages (the caller refuses the document then).
 */
export function readPageTree(view: PdfView, limit = Number.MAX_SAFE_INTEGER): PageTreeShape {
  const resolve = (ref: PdfRef) => view.resolve(ref);
  const catalogPages = view.catalog.get("Pages");
  const rootRef = catalogPages instanceof PdfRef ? catalogPages : null;
  const root = rootRef ? resolve(rootRef) : catalogPages;
  const shape: PageTreeShape = { rootRef, rootIsPage: false, pages: [], loop: null };
  if (!(root instanceof PdfDict)) return shape;
  if (!isPagesNode(root)) {
    shape.rootIsPage = true;
    shape.pages.push({ ref: rootRef, dict: root });
    return shape;
  }
  const visited = new Set<string>();
  const walk = (node: PdfDict, nodeName: string, depth: number) => {
    if (depth > MAX_DEPTH) {
      shape.loop ??= `it is more than ${MAX_DEPTH} levels deep below ${nodeName}`;
      return;
    }
    const kidsValue = node.get("Kids");
    const kids = kidsValue instanceof PdfRef ? resolve(kidsValue) : kidsValue;
    if (!(kids instanceof PdfArray)) return;
    for (let index = 0; index < kids.length && shape.loop === null && shape.pages.length <= limit; index++) {
      const kid = kids.at(index);
      const ref = kid instanceof PdfRef ? kid : null;
      const dict = ref ? resolve(ref) : kid;
      if (!(dict instanceof PdfDict)) continue; // readers skip a kid that is not a dictionary
      if (!isPagesNode(dict)) {
        shape.pages.push({ ref, dict });
        continue;
      }
      if (ref) {
        if (visited.has(key(ref))) {
          shape.loop = `object ${ref.objectNumber} is listed again in ${nodeName}`;
          return;
        }
        visited.add(key(ref));
      }
      walk(dict, ref ? `object ${ref.objectNumber}` : `a direct node of ${nodeName}`, depth + 1);
    }
  };
  if (rootRef) visited.add(key(rootRef));
  walk(root, rootRef ? `object ${rootRef.objectNumber}` : "the catalog", 0);
  return shape;
}

/** pageTreeLoopError refuses a document whose page tree has a loop: signing it would hand back the loop. */
export function pageTreeLoopError(loop: string): SignetError {
  return new SignetError(
    "INVALID_DOCUMENT",
    `The PDF's page tree has a loop (${loop}); readers disagree on its pages, so Signet does not sign it. Re-save it with a PDF tool (for example qpdf or a "print to PDF"), then send it again.`,
  );
}

/**
 * prepareForNewPages makes sure new pages can be appended without touching the existing tree:
 * when the catalog's /Pages is a page, a new root /Pages node is placed over it (the page gets
 * /Parent; nothing else changes). Returns false when pages cannot be added where every reader
 * shows them (no indirect /Pages root, or direct page dictionaries among the kids): the caller
 * signs without certificate pages, the audit record in the signature and its stamp on a page.
 */
export function prepareForNewPages(pdf: PDF, shape: PageTreeShape): boolean {
  // poppler stops at the first direct page dictionary: a page added after it would not show there.
  if (!shape.rootRef || shape.pages.some((page) => page.ref === null)) return false;
  if (!shape.rootIsPage) return pdf.getObject(shape.rootRef) instanceof PdfDict;
  const page = pdf.getObject(shape.rootRef);
  if (!(page instanceof PdfDict)) return false;
  const root = PdfDict.of({ Type: PdfName.of("Pages"), Kids: new PdfArray([shape.rootRef]), Count: PdfNumber.of(1) });
  const rootRef = pdf.register(root);
  page.set("Parent", rootRef);
  pdf.getCatalog().set("Pages", rootRef);
  return true;
}

/**
 * appendPage adds a blank page as the last kid of the root /Pages node (its /Count raised by one,
 * the page's /Parent the root) and returns it; no existing page or node is rewritten. libpdf's
 * own page list learns the page too, so pdf.getPages() includes it.
 */
export function appendPage(pdf: PDF, size: { width: number; height: number }): PDFPage {
  const resolve = (ref: PdfRef) => pdf.getObject(ref);
  const rootRef = pdf.getCatalog().get("Pages");
  const root = rootRef instanceof PdfRef ? resolve(rootRef) : undefined;
  if (!(rootRef instanceof PdfRef) || !(root instanceof PdfDict)) throw new Error("appendPage needs an indirect root /Pages node (prepareForNewPages)");
  const page = PdfDict.of({
    Type: PdfName.of("Page"),
    Parent: rootRef,
    MediaBox: new PdfArray([PdfNumber.of(0), PdfNumber.of(0), PdfNumber.of(size.width), PdfNumber.of(size.height)]),
    Resources: new PdfDict(),
  });
  const pageRef = pdf.register(page);
  const kids = root.getArray("Kids", resolve);
  if (kids) kids.push(pageRef);
  else root.set("Kids", new PdfArray([pageRef]));
  root.set("Count", PdfNumber.of((root.getNumber("Count", resolve)?.value ?? 0) + 1));
  const tree = pageTreeOf(pdf);
  tree.pages.push(pageRef);
  return new PDFPage(pageRef, page, tree.pages.length - 1, pdf.context);
}

/** lastIndirectPage is the last page of the shape that is an indirect object, as a libpdf page of the document being written (null when every page is direct). */
export function lastIndirectPage(pdf: PDF, shape: PageTreeShape): PDFPage | null {
  for (let index = shape.pages.length - 1; index >= 0; index--) {
    const { ref } = shape.pages[index]!;
    const dict = ref ? pdf.getObject(ref) : undefined;
    if (ref && dict instanceof PdfDict) return new PDFPage(ref, dict, index, pdf.context);
  }
  return null;
}
