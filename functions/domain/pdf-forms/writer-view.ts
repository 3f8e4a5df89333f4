import { type PDF, PdfRef } from "@libpdf/core";
import type { PdfView } from "#domain/pdf/pdf-file.ts";
import { trailerOf } from "#domain/pdf/libpdf-internals.ts";

/**
 * writerView is a PdfView over the writer's own objects (libpdf's parse of the latest revision,
 * decrypted when the file opens with an empty user password). Filling changes the dictionaries
 * readForm finds through it, so they must be the writer's, not the reader's copies; readForm and
 * readPageTree read them the same way as through a PdfFile.
 */
export function writerView(pdf: PDF): PdfView {
  const cache = new Map<string, ReturnType<PdfView["resolve"]>>();
  return {
    index: 0,
    trailer: trailerOf(pdf),
    catalog: pdf.getCatalog(),
    resolve(ref: PdfRef) {
      const key = `${ref.objectNumber} ${ref.generation}`;
      if (!cache.has(key)) cache.set(key, pdf.getObject(PdfRef.of(ref.objectNumber, ref.generation)) ?? undefined);
      return cache.get(key);
    },
  };
}
