// Cost of the full zip check (every entry inflated with a cap, streamed and discarded) that
// convert and sign run before LibreOffice, against the directory-only check it extends.
// Run: npm run bench:convert-check
import { randomBytes } from "node:crypto";
import { intake } from "#domain/documents/intake.ts";
import { readZipDirectory } from "#domain/shared/zip-container.ts";
import { buildZip } from "#test/helpers/zip-builder.ts";

const limits = {
  maxDocumentBytes: 25 * 1024 * 1024,
  maxEntries: 5000,
  maxUncompressedBytes: 200 * 1024 * 1024,
  maxImagePixels: 100_000_000,
  maxSvgBytes: 10 * 1024 * 1024,
};

function paragraphs(count: number): string {
  const words = "Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore".split(" ");
  let xml = "";
  for (let i = 0; i < count; i++) {
    const text = Array.from({ length: 40 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(" ");
    xml += `<w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:rPr><w:rFonts w:ascii="Calibri"/></w:rPr><w:t>${i} ${text}</w:t></w:r></w:p>`;
  }
  return `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${xml}</w:body></w:document>`;
}

function docx(paragraphCount: number, imageBytes: number[]): Buffer {
  return buildZip([
    { name: "[Content_Types].xml", data: "<Types/>" },
    { name: "word/document.xml", data: paragraphs(paragraphCount) },
    { name: "word/styles.xml", data: `<w:styles>${"<w:style/>".repeat(2000)}</w:styles>` },
    // Images are already compressed: random bytes model them.
    ...imageBytes.map((size, i) => ({ name: `word/media/image${i}.jpeg`, data: randomBytes(size) })),
  ]);
}

const cases: Array<[string, Buffer]> = [
  ["typical 50 KB DOCX (text + a logo)", docx(600, [35_000])],
  ["typical 5 MB DOCX (images + text)", docx(4000, [1_500_000, 1_500_000, 1_500_000])],
  ["text-only DOCX unpacking to ~60 MB (highly compressible)", docx(160_000, [])],
];

async function median(run: () => unknown, rounds: number): Promise<{ median: number; p95: number }> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(rounds / 2)]!, p95: times[Math.floor(rounds * 0.95)]! };
}

for (const [name, bytes] of cases) {
  const unpacked = readZipDirectory(bytes, limits).reduce((sum, entry) => sum + entry.uncompressedSize, 0);
  const rounds = bytes.length > 1_000_000 ? 30 : 200;
  const directory = await median(() => readZipDirectory(bytes, limits), rounds);
  const full = await median(() => intake(bytes, "docx", limits), rounds);
  const mb = (n: number) => (n / 1024 / 1024).toFixed(2);
  console.log(
    `${name}: ${mb(bytes.length)} MB, unpacks to ${mb(unpacked)} MB | directory only median ${directory.median.toFixed(3)} ms | ` +
      `full check median ${full.median.toFixed(2)} ms, p95 ${full.p95.toFixed(2)} ms`,
  );
}
