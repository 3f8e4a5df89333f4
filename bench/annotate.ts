// npm run bench:annotate — fills 200 fields (text, 10 images, a 100-row table) in a generated
// 30-page template, DOCX out, and prints the warm median and p95 beside the floor: a plain
// unzip + DEFLATE rezip of the same file with pizzip.
import PizZip from "pizzip";
import { fillTemplate, type Field } from "#domain/docx/annotate.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { blockControl, buildDocx, inlineControl, p, run, table } from "#test/helpers/docx-builder.ts";
import { dataUri, makePng } from "#test/helpers/annotate-images.ts";

const PAGES = 30;
const PARAGRAPHS_PER_PAGE = 14; // about a page of 11 pt body text each
const TEXT_FIELDS = 189; // + 10 images + 1 table = 200 fields
const IMAGES = 10;
const RUNS = 40;

const lorem =
  "The parties agree that the services described in this schedule will be delivered with reasonable care and skill, " +
  "that invoices are payable within thirty days of receipt, and that either party may end the agreement with notice. ";

function buildTemplate(): Buffer {
  const paragraphs: string[] = [];
  const total = PAGES * PARAGRAPHS_PER_PAGE;
  for (let i = 0; i < total; i++) {
    let inner = run(lorem, '<w:rFonts w:ascii="Carlito" w:hAnsi="Carlito"/><w:sz w:val="22"/>');
    if (i < TEXT_FIELDS) inner += inlineControl({ tag: `field-${i}`, id: String(1000 + i), rPr: "<w:b/>" });
    else if (i < TEXT_FIELDS + IMAGES) inner += inlineControl({ tag: `image-${i - TEXT_FIELDS}`, id: String(1000 + i) });
    paragraphs.push(p(inner));
    if (i === Math.floor(total / 2)) paragraphs.push(blockControl({ tag: "items" }, table([["Item", "Quantity", "Price"]], { cellRPr: "<w:b/>" })));
  }
  return buildDocx({ body: paragraphs.join(""), header: p(run("Signet benchmark template")) });
}

function buildFields(): Field[] {
  const fields: Field[] = [];
  for (let i = 0; i < TEXT_FIELDS; i++) fields.push({ id: `field-${i}`, type: "text", value: `Value number ${i} & more\nsecond line` });
  for (let i = 0; i < IMAGES; i++) {
    fields.push({ id: `image-${i}`, type: "image", value: dataUri(makePng(300 + i * 10, 150, [i * 20, 80, 160])), options: { dimensions: { width: 150 } } });
  }
  const rows = Array.from({ length: 100 }, (_, r) => [`Article ${r + 1}`, String((r % 7) + 1), `${(r * 3.75).toFixed(2)}`]);
  fields.push({ id: "items", type: "table", value: rows, options: { copyRowStyle: true } });
  return fields;
}

function stats(samples: number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)]! };
}

/** measure times warm runs: wall clock, and CPU time of this process (less disturbed by a busy machine). */
async function measure(what: () => Promise<unknown> | unknown): Promise<{ wall: number[]; cpu: number[] }> {
  for (let i = 0; i < 5; i++) await what(); // warm up
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const startCpu = process.cpuUsage();
    const start = performance.now();
    await what();
    wall.push(performance.now() - start);
    const used = process.cpuUsage(startCpu);
    cpu.push((used.user + used.system) / 1000);
  }
  return { wall, cpu };
}

const template = buildTemplate();
const fields = buildFields();
const fetcher: Fetcher = {
  fetch: async () => {
    throw new Error("the benchmark uses data URIs only");
  },
};
const limits = {
  maxDocxEntries: 5000,
  maxDocxUncompressedBytes: 200 * 1024 * 1024,
  maxDocxControls: 2000,
  maxDocxXmlNodes: 200_000,
  maxDocxControlNodes: 10_000,
  maxImageBytes: 10 * 1024 * 1024,
  maxTotalImageBytes: 50 * 1024 * 1024,
};

const output = await fillTemplate(template, fields, { fetcher, limits });
const documentXml = new PizZip(template).file("word/document.xml")!.asText().length;
const fillRuns = await measure(() => fillTemplate(template, fields, { fetcher, limits }));
// The floor inflates every entry and deflates it again (pizzip alone would copy unchanged entries
// still compressed, which is not what a fill can do).
const floorRuns = await measure(() => {
  const source = new PizZip(template);
  const copy = new PizZip();
  for (const name of Object.keys(source.files)) copy.file(name, source.file(name)!.asUint8Array());
  return copy.generate({ type: "nodebuffer", compression: "DEFLATE" });
});
const fill = stats(fillRuns.wall);
const floor = stats(floorRuns.wall);
const fillCpu = stats(fillRuns.cpu);
const floorCpu = stats(floorRuns.cpu);

const ms = (value: number) => `${value.toFixed(1)} ms`;
console.log(
  `template: ${PAGES} pages of text, ${(template.length / 1024).toFixed(0)} KB zipped, word/document.xml ${(documentXml / 1024).toFixed(0)} KB; fields: ${fields.length} (${TEXT_FIELDS} text, ${IMAGES} images, 1 table of 100 rows); output ${(output.length / 1024).toFixed(0)} KB`,
);
console.log(`fill 200 fields, DOCX out   median ${ms(fill.median)}   p95 ${ms(fill.p95)}   (target median <= 80 ms)`);
console.log(`floor: unzip + rezip        median ${ms(floor.median)}   p95 ${ms(floor.p95)}`);
console.log(`CPU time: fill median ${ms(fillCpu.median)}, floor median ${ms(floorCpu.median)} (includes GC threads)`);
console.log(
  `ratio fill / floor: ${(fill.median / floor.median).toFixed(1)}x over ${RUNS} runs each; load average ${(await import("node:os")).loadavg()[0]!.toFixed(1)}`,
);
