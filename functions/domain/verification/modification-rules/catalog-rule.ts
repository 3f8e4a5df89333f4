import { PdfRef, PdfStream } from "@libpdf/core";
import { differingKey, same } from "#domain/pdf/objects.ts";
import { keyOf, SuspiciousChangeError, type Analysis, type ModificationRule } from "#domain/verification/modification-rules/rule.ts";

// Catalog keys that may change (checked by their own rules), as pyHanko's defaults.
const ROOT_EXEMPT = new Set(["AcroForm", "DSS", "Extensions", "Metadata", "MarkInfo", "Version"]);

/**
 * catalogRule: the document catalog may only change the entries other rules check (form, DSS,
 * metadata, extensions); the catalog object itself, the document information dictionary and an
 * XMP metadata stream (rewritten in place or new, /Type /Metadata /Subtype /XML) are LTA updates,
 * as pyHanko's CatalogModificationRule and MetadataUpdateRule.
 */
export const catalogRule: ModificationRule = {
  name: "catalog",
  apply(analysis: Analysis): void {
    const { signed, current } = analysis;
    const key = differingKey(signed.catalog, current.catalog, ROOT_EXEMPT);
    if (key) throw new SuspiciousChangeError(`the document catalog's /${key} changed`);
    const root = current.trailer.get("Root");
    if (root instanceof PdfRef) {
      if (!same(root, signed.trailer.get("Root")) && !analysis.isNew(root))
        throw new SuspiciousChangeError("the trailer's /Root now points to an older object");
      analysis.explain(root, "lta");
    }
    for (const name of ["Extensions", "MarkInfo"]) analysis.refUpdate(signed.catalog, current.catalog, name, "lta");
    const info = current.trailer.get("Info");
    if (info instanceof PdfRef && (same(info, signed.trailer.get("Info")) || analysis.isNew(info))) {
      analysis.explain(info, "lta");
      analysis.ltaOnly.add(keyOf(info));
    }
    const metadata = current.catalog.get("Metadata");
    if (signed.catalog.get("Metadata") !== undefined && metadata === undefined) throw new SuspiciousChangeError("/Metadata was deleted");
    if (metadata instanceof PdfRef && (same(metadata, signed.catalog.get("Metadata")) || analysis.isNew(metadata))) {
      const stream = current.resolve(metadata);
      if (stream instanceof PdfStream && stream.getName("Type")?.value === "Metadata" && stream.getName("Subtype")?.value === "XML") {
        analysis.explain(metadata, "lta");
        analysis.ltaOnly.add(keyOf(metadata));
      }
    }
  },
};
