// What recycling LibreOffice after every job (SIGNET_LIBREOFFICE_RECYCLE, on in the office
// function) costs per conversion: the same small DOCX conversions on one warm LibreOffice, and
// with a fresh one per job (kill, stray sweep, new profile from the template, start). Medians of
// the rounds after a warm-up that makes the profile template, as the image ships one.
// Run: npm run bench:office-recycle [-- rounds]
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { createLibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

const rounds = Number(process.argv[2] ?? 10);
const root = mkdtempSync(join(tmpdir(), "signet-bench-recycle-"));
const profileTemplate = join(root, "profile-template");
const documents = Array.from({ length: rounds }, (_, i) => fixtureDocx({ title: `Recycle bench ${i + 1}`, paragraphs: 5 }));

/** medianMs converts every document once on a converter (after two warm-ups) and answers the median. */
async function medianMs(recycle: boolean): Promise<number> {
  const converter = createLibreOfficeConverter(
    officeOptions({
      mode: "warm",
      concurrency: 1,
      timeoutMs: 60_000,
      workDir: join(root, String(recycle)),
      profileTemplate,
      recycle,
    }),
  );
  try {
    for (let i = 0; i < 2; i++) await converter.convert({ bytes: fixtureDocx(), from: "docx", to: "pdf" });
    const times: number[] = [];
    for (const bytes of documents) {
      const start = process.hrtime.bigint();
      await converter.convert({ bytes, from: "docx", to: "pdf" });
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)]!;
  } finally {
    await converter.close();
  }
}

console.log(`LibreOffice recycled after every job vs warm: ${rounds} small DOCX (${(documents[0]!.length / 1024).toFixed(1)} KB) each, medians`);
console.log(
  `load average before: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}`,
);
const warm = await medianMs(false);
const recycled = await medianMs(true);
console.log(`  warm LibreOffice     ${warm.toFixed(0)} ms`);
console.log(`  recycled per job     ${recycled.toFixed(0)} ms  (+${(recycled - warm).toFixed(0)} ms per conversion, ${(recycled / warm).toFixed(1)}x)`);
console.log(
  `load average after: ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")}`,
);
rmSync(root, { recursive: true, force: true });
