// Run as a child process by test/integration/convert-cleanup.test.ts: a server stand-in whose work
// folder is signet-lo-<pid>-* under its TMPDIR, killed with -9 by the test. Argument "warm": start
// the warm pool, then idle; "oneshot": convert a document that keeps LibreOffice busy for long.
import { createLibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { slowDocx } from "#test/helpers/convert-fixtures.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

const mode = process.argv[2] === "oneshot" ? "oneshot" : "warm";
const converter = createLibreOfficeConverter(officeOptions({ mode, concurrency: 2, timeoutMs: 120_000 }));
if (mode === "warm") await converter.warm();
else await converter.convert({ bytes: slowDocx(), from: "docx", to: "pdf" }).catch(() => undefined);
setInterval(() => undefined, 1000);
