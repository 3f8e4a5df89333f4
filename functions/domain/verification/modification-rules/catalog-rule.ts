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
  apply(a: Analysis): void {
    const { old, neu } = a;
    const key = differingKey(old.root, neu.root, ROOT_EXEMPT);
    if (key) throw new SuspiciousChangeError(`the document catalog's /${key} changed`);
    const root = neu.trailer.get("Root");
    if (root instanceof PdfRef) {
      if (!same(root, old.trailer.get("Root")) && !a.isNew(root)) throw new SuspiciousChangeError("the trailer's /Root now points to an older object");
      a.explain(root, "lta");
    }
    for (const name of ["Extensions", "MarkInfo"]) a.refUpdate(old.root, neu.root, name, "lta");
    const info = neu.trailer.get("Info");
    if (info instanceof PdfRef && (same(info, old.trailer.get("Info")) || a.isNew(info))) {
      a.explain(info, "lta");
      a.ltaOnly.add(keyOf(info));
    }
    const metadata = neu.root.get("Metadata");
    if (old.root.get("Metadata") !== undefined && metadata === undefined) throw new SuspiciousChangeError("/Metadata was deleted");
    if (metadata instanceof PdfRef && (same(metadata, old.root.get("Metadata")) || a.isNew(metadata))) {
      const stream = neu.resolve(metadata);
      if (stream instanceof PdfStream && stream.getName("Type")?.value === "Metadata" && stream.getName("Subtype")?.value === "XML") {
        a.explain(metadata, "lta");
        a.ltaOnly.add(keyOf(metadata));
      }
    }
  },
};
