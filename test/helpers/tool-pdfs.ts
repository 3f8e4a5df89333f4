// PDFs for the PDF tools' tests: text pages with bookmarks, named destinations and a form field,
// built with pdf-lib (pages) and libpdf (the rest), so merge, split and pages have something to keep.
import { PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfString } from "@libpdf/core";
import { PDFDocument, StandardFonts } from "pdf-lib";

/**
 * toolPdf makes `pages` pages whose text is "<label> page N", a bookmark per page ("<label> N"),
 * a named destination per page ("page-N", the same names in every file made here, so a merge
 * collides) and one text field "name" holding the label on the first page.
 */
export async function toolPdf(label: string, pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pages; index++) doc.addPage([300, 300]).drawText(`${label} page ${index + 1}`, { x: 20, y: 150, size: 14, font });
  const pdf = await PDF.load(await doc.save({ useObjectStreams: false }));
  const field = pdf.getOrCreateForm().createTextField("name");
  pdf.getPage(0)!.drawField(field, { x: 20, y: 20, width: 120, height: 20 });
  field.setValue(label);
  const refs = pdf.getPages().map((page) => page.ref);
  const root = PdfDict.of({ Type: PdfName.of("Outlines") });
  const rootRef = pdf.register(root);
  const items = refs.map((ref, index) =>
    PdfDict.of({ Title: PdfString.fromString(`${label} ${index + 1}`), Parent: rootRef, Dest: PdfArray.of(ref, PdfName.of("Fit")) }),
  );
  const itemRefs = items.map((item) => pdf.register(item));
  items.forEach((item, index) => {
    if (index > 0) item.set("Prev", itemRefs[index - 1]!);
    if (index + 1 < items.length) item.set("Next", itemRefs[index + 1]!);
  });
  root.set("First", itemRefs[0]!);
  root.set("Last", itemRefs.at(-1)!);
  root.set("Count", PdfNumber.of(items.length));
  const catalog = pdf.getCatalog();
  catalog.set("Outlines", rootRef);
  const names = new PdfArray(refs.flatMap((ref, index) => [PdfString.fromString(`page-${index + 1}`), PdfArray.of(ref, PdfName.of("Fit"))]));
  catalog.set("Names", PdfDict.of({ Dests: pdf.register(PdfDict.of({ Names: names })) }));
  return Buffer.from(await pdf.save());
}
