// What the office function's invoke adds to a conversion, measured in-process:
// the caller's input checks, the job's JSON and base64 each way, the presigned URLs, and for a
// document over 4 MB the S3 round trips (the local S3 stand-in), the office function's own checks.
// Three lines per document, in one run: LibreOffice directly (the local converter), LibreOffice
// through the adapter and the office handler, and the adapter's overhead alone (an instant
// converter behind both, returning as many bytes as it was given). Real Lambda (the invoke's
// network hop, the office function's cold start) cannot be measured here.
// Run: npm run bench:office
import { S3Client } from "@aws-sdk/client-s3";
import { createOfficeWorkerConverter, type OfficeInvoke } from "#adapters/office-worker-converter.ts";
import { readPresigned, writePresigned } from "#adapters/presigned-url.ts";
import { createS3OfficeTransfer } from "#adapters/s3-office-transfer.ts";
import type { Converter } from "#domain/documents/converter.ts";
import { INLINE_DOCUMENT_BYTES } from "#domain/documents/office-job.ts";
import { intake } from "#domain/documents/intake.ts";
import { runOfficeJob } from "#domain/documents/office-worker.ts";
import { startS3StandIn } from "#local/s3-stand-in.ts";
import { fixtureDocx } from "#test/helpers/convert-fixtures.ts";
import { makeLargeDocx } from "#test/helpers/large-docs.ts";
import { converter } from "#wiring/conversion.ts";

const { loadConfig } = await import("#config");
const { createContainer } = await import("#wiring/container.ts");
const { makeOfficeHandler } = await import("#functions/office.ts");
// One container for both lines: the office handler's converter is the one LibreOffice runs in directly.
const container = createContainer(loadConfig(process.env));
const localConverter = () => converter(container);
const handler = makeOfficeHandler(container);

const bucket = "signet-uploads";
const s3 = await startS3StandIn({ buckets: [bucket], secretAccessKey: "bench" });
const client = new S3Client({
  region: "us-east-1",
  endpoint: s3.endpoint,
  forcePathStyle: true,
  credentials: { accessKeyId: "bench", secretAccessKey: "bench" },
});
const transfer = createS3OfficeTransfer({ client, bucket });
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const limits = {
  maxDocumentBytes: 75 * 1024 * 1024,
  maxEntries: 5000,
  maxUncompressedBytes: 200 * 1024 * 1024,
  maxImagePixels: 100_000_000,
  maxSvgBytes: 10 * 1024 * 1024,
};

// With LibreOffice: the office handler as deployed (its converter is the local one here).
const viaOffice = createOfficeWorkerConverter({ invoke: async (job) => wire(await handler(wire(job))), transfer });

// Without: an instant converter on both sides, so only the transport is left.
const instant: Converter = { convert: async (document) => Buffer.from(document.bytes) };
const instantInvoke: OfficeInvoke = async (job) =>
  wire(
    await runOfficeJob(wire(job), {
      converter: instant,
      conversionLimitMs: 60_000,
      limits,
      inlineLimitBytes: INLINE_DOCUMENT_BYTES,
      readInput: (url, maxBytes) => readPresigned(url, maxBytes, 30_000),
      writeOutput: (url, bytes) => writePresigned(url, bytes, 30_000),
    }),
  );
const instantDirect = instant;
const instantVia = createOfficeWorkerConverter({ invoke: instantInvoke, transfer });

async function timed(run: () => Promise<unknown>, rounds: number): Promise<number> {
  const times: number[] = [];
  await run(); // warm-up, not counted
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

const documents: Array<[string, Buffer, number]> = [
  ["100 KB DOCX", makeLargeDocx(100 * 1024 - fixtureDocx().length, "Bench document of about 100 KB"), 15],
  ["10 MB DOCX", makeLargeDocx(10 * 1024 * 1024, "Bench document of about 10 MB"), 5],
];

const ms = (value: number) => `${value.toFixed(1)} ms`;
console.log("office function overhead, in-process (medians; the local LibreOffice converter, warm path by default)");
for (const [name, bytes, rounds] of documents) {
  // Each side runs intake as the service does: the caller before sending, the office function again.
  const send = async (converter: Converter) => converter.convert(await intake(bytes, "docx", limits), { to: "pdf" });
  const direct = await timed(() => send(localConverter()), rounds);
  const via = await timed(() => send(viaOffice), rounds);
  const bare = await timed(() => send(instantDirect), rounds);
  const bareVia = await timed(() => send(instantVia), rounds);
  console.log(`${name} (${(bytes.length / 1024 / 1024).toFixed(2)} MB, ${rounds} rounds):`);
  console.log(`  LibreOffice direct            ${ms(direct)}`);
  console.log(`  through the office function   ${ms(via)}  (${(via / direct).toFixed(2)}x, +${ms(via - direct)})`);
  console.log(`  transport alone: checks only  ${ms(bare)}; with the invoke ${ms(bareVia)}  (+${ms(bareVia - bare)})`);
}
await localConverter().close();
await s3.close();
