// What the benchmarks measure Signet against: generated input PDFs and the naive pipeline (pdf-lib
// load + a certificate page + placeholder + full re-save + @signpdf P12 signing). Shared by
// bench/sign.ts (in-process) and bench/http.ts (through the local server).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { concatTransformationMatrix, drawObject, PDFDocument, popGraphicsState, pushGraphicsState, StandardFonts } from "pdf-lib";
import { buildPki } from "#test/helpers/pki/build.ts";
import { scratchDir } from "#test/helpers/scratch.ts";

/** Pipeline signs one PDF. */
export type Pipeline = (input: Buffer) => Promise<Uint8Array>;

/** makeBenchPdf builds a PDF of `pages` pages, each with `noiseBytesPerPage` of incompressible image data (like scans). */
export async function makeBenchPdf(pages: number, noiseBytesPerPage: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pages; index++) {
    const page = doc.addPage([595, 842]);
    page.drawText(`Page ${index + 1}`, { x: 50, y: 780, size: 24, font });
    if (noiseBytesPerPage > 0) {
      const side = Math.floor(Math.sqrt(noiseBytesPerPage / 3));
      const image = doc.context.flateStream(randomBytes(side * side * 3), {
        Type: "XObject",
        Subtype: "Image",
        Width: side,
        Height: side,
        ColorSpace: "DeviceRGB",
        BitsPerComponent: 8,
      });
      const name = page.node.newXObject("Im", doc.context.register(image));
      page.pushOperators(pushGraphicsState(), concatTransformationMatrix(300, 0, 0, 300, 100, 300), drawObject(name), popGraphicsState());
    }
  }
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** benchPdfFile is the path of a generated input PDF in `folder`, made once and then reused. */
export async function benchPdfFile(folder: string, name: string, pages: number, noise: number): Promise<string> {
  const path = join(folder, name);
  if (!existsSync(path)) {
    mkdirSync(folder, { recursive: true });
    writeFileSync(path, await makeBenchPdf(pages, noise));
  }
  return path;
}

/** naivePipeline: pdf-lib load + a certificate page (standard font) + placeholder + full re-save + @signpdf P12 signing. */
export async function naivePipeline(): Promise<Pipeline> {
  const { pdflibAddPlaceholder } = await import("@signpdf/placeholder-pdf-lib");
  const { P12Signer } = await import("@signpdf/signer-p12");
  const { SignPdf } = await import("@signpdf/signpdf");
  const dir = scratchDir("bench-naive");
  // An RSA-3072 self-signed signer in the legacy SHA-1/3DES P12 node-forge (inside @signpdf) reads.
  const pki = buildPki(
    {
      certificates: { naive: { subject: "/CN=Naive Signer", key: "rsa3072", days: 2 } },
      p12s: { naive: { certificate: "naive", password: "", algorithms: "sha1-3des" } },
    },
    dir,
  );
  const p12 = pki.p12("naive");
  rmSync(dir, { recursive: true, force: true });
  const signer = new SignPdf();
  return async (input) => {
    const doc = await PDFDocument.load(input);
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const page = doc.addPage([595, 842]);
    let y = 780;
    for (const line of [
      "Audit Trail Certificate",
      "Signer: Ada Lovelace <ada@example.com>",
      "IP: 203.0.113.7",
      "ready 2026-11-22 09:55:00 UTC",
      "submit 2026-11-22 09:58:00 UTC",
    ]) {
      page.drawText(line, { x: 50, y, size: 11, font });
      y -= 16;
    }
    pdflibAddPlaceholder({ pdfDoc: doc, reason: "Signed by Ada Lovelace", contactInfo: "ada@example.com", name: "Ada Lovelace", location: "" });
    const prepared = Buffer.from(await doc.save({ useObjectStreams: false }));
    // P12Signer instances cannot be reused: one per signature.
    return signer.sign(prepared, new P12Signer(p12));
  };
}

/**
 * libpdfPipeline: @libpdf/core's own signing API in-process: `PDF.load`, `pdf.sign` (P12Signer,
 * RSA-3072 like Signet's default KMS key, ETSI.CAdES.detached B-B; libpdf writes an incremental
 * update with a placeholder and signs the byte range) and its bytes as saved. No certificate page.
 */
export async function libpdfPipeline(): Promise<Pipeline> {
  const { PDF, P12Signer } = await import("@libpdf/core");
  const dir = scratchDir("bench-libpdf");
  const pki = buildPki(
    {
      certificates: { libpdf: { subject: "/CN=Libpdf Signer", key: "rsa3072", days: 2 } },
      p12s: { libpdf: { certificate: "libpdf", password: "bench", algorithms: "openssl-default" } },
    },
    dir,
  );
  const p12 = pki.p12("libpdf");
  rmSync(dir, { recursive: true, force: true });
  const signer = await P12Signer.create(p12, "bench");
  return async (input) => {
    const pdf = await PDF.load(input);
    const { bytes } = await pdf.sign({ signer, reason: "Signed by Ada Lovelace", contactInfo: "ada@example.com" });
    return bytes;
  };
}
