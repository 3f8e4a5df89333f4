// PDFs the tests sign: pdf-lib pages with text and shapes, and the incremental updates that make a
// file certified or give it shared signature fields.
import { PDFDocument, StandardFonts, rgb } from "pdf-lib";

/** makePdf builds a PDF with pdf-lib: each page has a heading, body text and coloured shapes. */
export async function makePdf(pages = 3, options: { title?: string; classicXref?: boolean; size?: [number, number] } = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  if (options.title) doc.setTitle(options.title);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pages; index++) {
    const page = doc.addPage(options.size ?? [595, 842]);
    page.drawText(`Contract page ${index + 1}`, { x: 60, y: 760, size: 26, font, color: rgb(0.1, 0.2, 0.5) });
    page.drawText(`Hello signer, this is clause ${index + 1}.`, { x: 60, y: 700, size: 12, font });
    page.drawRectangle({ x: 60, y: 400 - index * 30, width: 200, height: 120, color: rgb(0.9, (0.3 + index * 0.2) % 1, 0.2) });
    page.drawCircle({ x: 420, y: 300, size: 60, color: rgb(0.2, 0.7, 0.4) });
  }
  // A classic cross-reference table when asked: pyHanko then writes its update with one too
  // (libpdf 0.x cannot read pyHanko's xref streams, whose offset fields are 8 bytes wide).
  return Buffer.from(await doc.save({ useObjectStreams: !options.classicXref }));
}

/**
 * withSharedSignatureFields appends (incrementally) `count` more signature fields whose /V is the
 * signature dictionary of the file's first signature: the shape of a verify-amplification attack.
 */
export async function withSharedSignatureFields(signed: Buffer, count: number): Promise<Buffer> {
  const { PDF, PdfDict } = await import("@libpdf/core");
  const pdf = await PDF.load(signed);
  const form = pdf.getOrCreateForm();
  const first = form.getFields().find((field) => field.type === "signature")!;
  const value = (first as unknown as { getDict(): InstanceType<typeof PdfDict> }).getDict().get("V")!;
  for (let index = 0; index < count; index++) form.createSignatureField(`Copy_${index}`).getDict().set("V", value);
  return Buffer.from(await pdf.save({ incremental: true }));
}

/**
 * certify marks a PDF as certified with DocMDP permission `p` (an incremental update adding
 * /Perms /DocMDP and its signature dictionary's DocMDP reference; the signature value itself is
 * a placeholder: the signer must refuse from the permission alone).
 */
export async function certify(bytes: Buffer, p: 1 | 2 | 3): Promise<Buffer> {
  const { PDF, PdfArray, PdfDict, PdfName, PdfNumber, PdfString } = await import("@libpdf/core");
  const pdf = await PDF.load(bytes);
  const signature = PdfDict.of({
    Type: PdfName.of("Sig"),
    Filter: PdfName.of("Adobe.PPKLite"),
    SubFilter: PdfName.of("ETSI.CAdES.detached"),
    Contents: new PdfString(new Uint8Array(16), "hex"),
    Reference: new PdfArray([
      PdfDict.of({
        Type: PdfName.of("SigRef"),
        TransformMethod: PdfName.of("DocMDP"),
        TransformParams: PdfDict.of({ Type: PdfName.of("TransformParams"), P: PdfNumber.of(p), V: PdfName.of("1.2") }),
      }),
    ]),
  });
  pdf.getCatalog().set("Perms", PdfDict.of({ DocMDP: pdf.register(signature) }));
  return Buffer.from(await pdf.save({ incremental: true }));
}
