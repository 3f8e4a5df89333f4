import { readFileSync } from "node:fs";
import { PDF } from "@libpdf/core";
for (const name of ["hybrid-reference"]) {
try { const pdf = await PDF.load(readFileSync(`/tmp/rw/in/${name}.pdf`)); console.log(name, "ok", pdf.recoveredViaBruteForce, pdf.getPageCount(), pdf.warnings); } catch (e) { console.log(name, e); }
}
