// Benchmark of DOCX -> PDF: plain `soffice --convert-to` against the service path (input checks,
// the office input checks, converter in its network namespace as the system allows)
// one-shot and warm, on 10 generated DOCX files, measured in the same run.
// Usage: npm run bench:convert [-- --rounds 3]
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createLibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { locateSoffice } from "#adapters/libreoffice/profile.ts";
import { checkConversionInput } from "#domain/conversion/conversion.ts";
import { withOfficeInputChecks } from "#domain/conversion/office-input.ts";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { officeOptions } from "#test/helpers/office-options.ts";

const run = promisify(execFile);
const roundsArg = process.argv.indexOf("--rounds");
const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 2;
const limits = { maxDocumentBytes: 25 * 1024 * 1024, maxEntries: 5000, maxUncompressedBytes: 200 * 1024 * 1024 };

const soffice = await locateSoffice(process.env.SIGNET_SOFFICE);
if (!soffice) throw new Error("LibreOffice (soffice) is not installed");
const dir = await mkdtemp(join(tmpdir(), "signet-bench-convert-"));
const files = Array.from({ length: 10 }, (_, i) => fixtureDocx({ paragraphs: i * 15, title: `Benchmark document ${i + 1}` }));
const paths = await Promise.all(
  files.map(async (bytes, i) => {
    const path = join(dir, `doc-${i + 1}.docx`);
    await writeFile(path, bytes);
    return path;
  }),
);

// Plain soffice, as a user would run it, with its own (already initialised) profile.
const plainProfile = pathToFileURL(join(dir, "plain-profile")).href;
async function plain(path: string): Promise<void> {
  await run(soffice!, [`-env:UserInstallation=${plainProfile}`, "--headless", "--convert-to", "pdf", "--outdir", join(dir, "plain-out"), path], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
  });
}

const officeLimits = { ...limits, maxImagePixels: 100_000_000, maxSvgBytes: 10 * 1024 * 1024 };
const boxed = { concurrency: 1, timeoutMs: 120_000, memoryLimitMb: 4096 } as const;
const oneshot = withOfficeInputChecks(createLibreOfficeConverter(officeOptions({ ...boxed, mode: "oneshot" })), officeLimits);
const warm = withOfficeInputChecks(createLibreOfficeConverter(officeOptions({ ...boxed, mode: "warm" })), officeLimits);
async function service(converter: typeof warm, bytes: Buffer): Promise<void> {
  await checkConversionInput(bytes, "docx", limits);
  const pdf = await converter.convert({ bytes, from: "docx", to: "pdf" });
  if (pdf.subarray(0, 5).toString() !== "%PDF-") throw new Error("not a PDF");
}

async function time(task: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await task();
  return performance.now() - started;
}

// Warm-up: initialise every profile and start the warm LibreOffice (not measured).
await plain(paths[0]!);
await service(oneshot, files[0]!);
await warm.warm();

const samples = { plain: [] as number[], oneshot: [] as number[], warm: [] as number[] };
for (let round = 0; round < rounds; round++) {
  for (let i = 0; i < files.length; i++) {
    // Interleaved so that load from other processes hits all three alike.
    samples.plain.push(await time(() => plain(paths[i]!)));
    samples.oneshot.push(await time(() => service(oneshot, files[i]!)));
    samples.warm.push(await time(() => service(warm, files[i]!)));
  }
}
const isolation = warm.isolation()?.summary ?? "unknown";
await Promise.all([oneshot.close(), warm.close()]);
await rm(dir, { recursive: true, force: true });

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return sorted.length % 2 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const row = (name: string, values: number[]) =>
  `${name.padEnd(34)} median ${median(values).toFixed(0).padStart(6)} ms   p95 ${quantile(values, 0.95).toFixed(0).padStart(6)} ms`;
const plainMedian = median(samples.plain);
process.stdout.write(
  [
    `DOCX -> PDF, 10 files (${(Math.min(...files.map((f) => f.length)) / 1024).toFixed(0)}-${(Math.max(...files.map((f) => f.length)) / 1024).toFixed(0)} KB), ${rounds} round(s), ${samples.plain.length} samples per path`,
    row("plain soffice --convert-to", samples.plain),
    row("service one-shot", samples.oneshot),
    row("service warm", samples.warm),
    `isolation: ${isolation}`,
    `one-shot / plain: ${(median(samples.oneshot) / plainMedian).toFixed(2)}x   (goal <= 1.10x)`,
    `plain / warm:     ${(plainMedian / median(samples.warm)).toFixed(1)}x faster   (goal >= 4x)`,
    "",
  ].join("\n"),
);
