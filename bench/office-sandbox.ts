// What the bubblewrap sandbox costs a conversion: a small DOCX to PDF, warm and one-shot, with
// SIGNET_LIBREOFFICE_ISOLATION=off (no box at all) and with the sandbox (auto, where bwrap works;
// the summary line printed says which box was in effect). Median of N conversions after one
// warm-up each, interleaved, so the machine's load falls on both alike.
// Usage: npm run bench:office-sandbox [-- --rounds 10]
import { availableParallelism, loadavg } from "node:os";
import { createLibreOfficeConverter, type LibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

const roundsArg = process.argv.indexOf("--rounds");
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 10;
const docx = fixtureDocx();

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

for (const mode of ["warm", "oneshot"] as const) {
  const boxes = { off: "off", sandbox: "auto" } as const;
  const offices = Object.fromEntries(
    Object.entries(boxes).map(([name, isolation]) => [
      name,
      createLibreOfficeConverter(officeOptions({ mode, concurrency: 1, timeoutMs: 120_000, isolation, memoryLimitMb: 4096 })),
    ]),
  ) as Record<keyof typeof boxes, LibreOfficeConverter>;
  const times: Record<string, number[]> = { off: [], sandbox: [] };
  for (const office of Object.values(offices)) await office.convert({ bytes: docx, from: "docx", to: "pdf" });
  for (let i = 0; i < rounds; i++) {
    for (const [name, office] of Object.entries(offices)) {
      const start = performance.now();
      await office.convert({ bytes: docx, from: "docx", to: "pdf" });
      times[name]!.push(performance.now() - start);
    }
  }
  for (const [name, office] of Object.entries(offices)) {
    const values = times[name]!;
    console.log(
      `${mode.padEnd(7)} ${name.padEnd(7)} median ${median(values).toFixed(0)} ms (min ${Math.min(...values).toFixed(0)}, max ${Math.max(...values).toFixed(0)}, n=${values.length}) — ${office.isolation()?.summary}`,
    );
    await office.close();
  }
}
console.log(
  `load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" ")} on ${availableParallelism()} cores`,
);
