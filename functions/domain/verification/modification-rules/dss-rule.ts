import { PdfArray, PdfDict, PdfRef, PdfStream, type PdfObject } from "@libpdf/core";
import { deref, keyOf, SuspiciousChangeError, type Analysis, type ModificationRule } from "#domain/verification/modification-rules/rule.ts";

const DSS_ARRAYS = ["Certs", "CRLs", "OCSPs"];

/**
 * dssRule: the document security store (validation data) may be added or grown: its dictionary,
 * its /Certs, /CRLs and /OCSPs arrays (direct or indirect, rewritten in place as pyHanko's LTA
 * updates do), the data streams and the /VRI dictionaries. Every object explained here must be
 * used by nothing but the DSS (checked after the rules), so the DSS cannot carry page content.
 */
export const dssRule: ModificationRule = {
  name: "dss",
  apply(analysis: Analysis): void {
    const { signed, current } = analysis;
    const value = current.catalog.get("DSS");
    if (value === undefined) {
      if (signed.catalog.get("DSS") !== undefined) throw new SuspiciousChangeError("the DSS was deleted");
      return;
    }
    const explain = (item: PdfObject | undefined, depth: number): void => {
      if (depth > 8) throw new SuspiciousChangeError("the DSS is nested too deeply");
      if (item instanceof PdfRef) {
        const resolved = current.resolve(item);
        if (resolved === undefined) return;
        if (resolved instanceof PdfStream && resolved.getName("Type") !== undefined)
          throw new SuspiciousChangeError(`the DSS holds a typed stream (${keyOf(item)})`);
        analysis.explain(item, "lta");
        analysis.ltaOnly.add(keyOf(item));
        explain(resolved, depth + 1);
      } else if (item instanceof PdfArray) {
        for (const element of item.toArray()) explain(element, depth + 1);
      } else if (item instanceof PdfDict && !(item instanceof PdfStream)) {
        for (const key of item.keys()) explain(item.get(key), depth + 1);
      }
    };
    const dss = deref(current, value);
    if (!(dss instanceof PdfDict)) throw new SuspiciousChangeError("the DSS is not a dictionary");
    for (const key of dss.keys()) {
      if (!["Type", "VRI", ...DSS_ARRAYS].includes(key.value)) throw new SuspiciousChangeError(`the DSS holds an unexpected /${key.value}`);
    }
    explain(value, 0);
  },
};
