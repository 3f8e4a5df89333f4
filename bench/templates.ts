// Benchmark of issue-31 features, measured in one run: filling a template from data (a 50-row and a
// 2,000-row table loop; the template limits' worst case, issue 36), and converting a 10-sheet workbook and a 30-slide deck to PDF through the
// service path (input checks + warm converter) against plain `soffice --convert-to`.
// Usage: npm run bench:templates [-- --rounds 5]
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createLibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { locateSoffice } from "#adapters/libreoffice/profile.ts";
import { checkConversionInput, conversionOptions } from "#domain/conversion/conversion.ts";
import type { SourceFormat } from "#domain/conversion/converter.ts";
import { describeFields, fillTemplate } from "#domain/docx/annotate.ts";
import { solidPng } from "#test/helpers/convert-fixtures.ts";
import { buildDocx, p, run as textRun, table } from "#test/helpers/docx-builder.ts";
import { buildOdp, buildOds } from "#test/helpers/office-suite-files.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

const exec = promisify(execFile);
const roundsArg = process.argv.indexOf("--rounds");
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3;
const limits = {
  maxDocumentBytes: 25 * 1024 * 1024,
  maxEntries: 5000,
  maxUncompressedBytes: 200 * 1024 * 1024,
  maxDocxEntries: 5000,
  maxDocxUncompressedBytes: 200 * 1024 * 1024,
  maxDocxControls: 2000,
  maxDocxXmlNodes: 200_000,
  maxDocxControlNodes: 10_000,
  maxImageBytes: 10 * 1024 * 1024,
  maxTotalImageBytes: 50 * 1024 * 1024,
};
const noFetch = { fetch: () => Promise.reject(new Error("no fetch in the benchmark")) };

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
async function time(task: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

// 1. Filling from data.
const invoice = buildDocx({
  body:
    p(textRun("Invoice {{number}} for {{customer.name}}")) +
    table([
      ["Item", "Quantity", "Price"],
      ["{{#items}}{{name}}", "{{qty}}", "{{price}}{{/items}}"],
    ]),
});
const data = (rows: number) => ({
  number: "2026-0042",
  customer: { name: "Ada Lovelace" },
  items: Array.from({ length: rows }, (_, i) => ({ name: `Item ${i + 1}`, qty: i % 7, price: (i * 1.25).toFixed(2) })),
});
// The template limits' worst (SIGNET_MAX_TEMPLATE_DEPTH 32, SIGNET_MAX_TEMPLATE_TAGS 2,000): docxtemplater
// compiles it on the event loop, in time that grows with tags x depth; and 1,000 nested sections
// (over the depth limit: refused before compiling; it compiled in about 3 s before the limit).
const deepest = buildDocx({ body: p(textRun(`${"{{#a}}".repeat(32)}${"{{b}}".repeat(1936)}${"{{/a}}".repeat(32)}`)) });
const tooDeep = buildDocx({ body: p(textRun(`${"{{#a}}".repeat(1000)}x${"{{/a}}".repeat(1000)}`)) });
const deepData = { a: [{ a: false, b: "v" }], b: "w" };
const fills: Record<string, number[]> = {
  "fill 50-row loop": [],
  "fill 2,000-row loop": [],
  "fields: 2,000 tags 32 deep": [],
  "fill: 2,000 tags 32 deep": [],
  "fields: 1,000 nested (refused)": [],
};
for (let round = 0; round < rounds + 1; round++) {
  const runs = {
    "fill 50-row loop": await time(() => fillTemplate(invoice, [], { fetcher: noFetch, limits }, data(50))),
    "fill 2,000-row loop": await time(() => fillTemplate(invoice, [], { fetcher: noFetch, limits }, data(2000))),
    "fields: 2,000 tags 32 deep": await time(() => describeFields(deepest, limits)),
    "fill: 2,000 tags 32 deep": await time(() => fillTemplate(deepest, [], { fetcher: noFetch, limits }, deepData)),
    "fields: 1,000 nested (refused)": await time(() => describeFields(tooDeep, limits).catch(() => undefined)),
  };
  if (round === 0) continue; // warm-up
  for (const [name, ms] of Object.entries(runs)) fills[name]!.push(ms);
}

// 2. Spreadsheets and presentations to PDF.
const soffice = await locateSoffice(process.env.SIGNET_SOFFICE);
if (!soffice) throw new Error("LibreOffice (soffice) is not installed");
const dir = await mkdtemp(join(tmpdir(), "signet-bench-templates-"));
const workbook = buildOds(
  Array.from({ length: 10 }, (_, s) => ({
    name: `Sheet ${s + 1}`,
    rows: Array.from({ length: 60 }, (_, r) => [`Row ${r + 1}`, r * s, { formula: `of:=[.B${r + 1}]*2`, value: r * s * 2 }]),
  })),
);
const deck = buildOdp(Array.from({ length: 30 }, (_, i) => ({ text: `Slide ${i + 1}`, ...(i % 5 === 0 ? { picture: solidPng(320, 240) } : {}) })));
const inputs: Array<{ name: string; from: SourceFormat; bytes: Buffer; path: string }> = [
  { name: "10-sheet workbook (ods)", from: "ods", bytes: workbook, path: join(dir, "workbook.ods") },
  { name: "30-slide deck (odp)", from: "odp", bytes: deck, path: join(dir, "deck.odp") },
];
for (const input of inputs) await writeFile(input.path, input.bytes);
const plainProfile = pathToFileURL(join(dir, "plain-profile")).href;
const plain = (path: string) =>
  exec(soffice, [`-env:UserInstallation=${plainProfile}`, "--headless", "--convert-to", "pdf", "--outdir", join(dir, "out"), path], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
  });
const warm = createLibreOfficeConverter(officeOptions({ mode: "warm", concurrency: 1, timeoutMs: 120_000 }));
const service = async (from: SourceFormat, bytes: Buffer) => {
  const checked = await checkConversionInput(bytes, from, limits);
  await warm.convert({ bytes, ...conversionOptions({ from, to: "pdf" }, { maxConvertPages: 1000 }), ...checked });
};
await plain(inputs[0]!.path);
await warm.warm();
const conversions = new Map(inputs.map((input) => [input.name, { plain: [] as number[], service: [] as number[] }]));
for (let round = 0; round < rounds + 1; round++) {
  for (const input of inputs) {
    const plainTime = await time(() => plain(input.path));
    const serviceTime = await time(() => service(input.from, input.bytes));
    if (round === 0) continue;
    conversions.get(input.name)!.plain.push(plainTime);
    conversions.get(input.name)!.service.push(serviceTime);
  }
}
await warm.close();
await rm(dir, { recursive: true, force: true });

const lines = [`${rounds} round(s) after one warm-up round`];
for (const [name, values] of Object.entries(fills)) lines.push(`${name.padEnd(30)} median ${median(values).toFixed(0).padStart(6)} ms`);
for (const [name, { plain: p0, service: s0 }] of conversions) {
  lines.push(
    `${name.padEnd(30)} plain soffice ${median(p0).toFixed(0).padStart(6)} ms   service (warm) ${median(s0).toFixed(0).padStart(6)} ms   ${(median(p0) / median(s0)).toFixed(1)}x faster`,
  );
}
process.stdout.write(`${lines.join("\n")}\n`);
