// The office function and the converter that invokes it, without AWS: the
// office function's handler runs in-process with the real LibreOffice behind it, reached through
// the adapter's client port (a plain function standing in for Lambda's invoke, the job sent as
// JSON as Lambda would); large documents travel through the local S3 stand-in by presigned URLs.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import PizZip from "pizzip";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOfficeWorkerConverter, type OfficeInvoke, type OfficeTransfer } from "#adapters/office-worker-converter.ts";
import { readPresigned, writePresigned } from "#adapters/presigned-url.ts";
import { createS3OfficeTransfer } from "#adapters/s3-office-transfer.ts";
import { s3ClientFor } from "#adapters/s3-upload-store.ts";
import type { OfficeJob, OfficePing } from "#domain/documents/office-job.ts";
import { runOfficeJob } from "#domain/documents/office-worker.ts";
import { errorTable } from "#http/error-table.ts";
import { startS3StandIn, type S3StandIn } from "#local/s3-stand-in.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";
import { fixtureDocx, fixtureText, pngDeclaring } from "#test/helpers/convert-fixtures.ts";
import { makeLargeDocx } from "#test/helpers/large-docs.ts";
import { pdfPageCount, pdfText } from "#test/helpers/pdf-tools.ts";
import { unchecked } from "#test/helpers/prepared-documents.ts";
import { makeOfficeHandler } from "#functions/office.ts";
import { testContainer } from "#test/helpers/container.ts";
import type { Container } from "#wiring/container.ts";
import { converter as converterOf } from "#wiring/conversion.ts";

const root = mkdtempSync(join(tmpdir(), "signet-office-worker-"));
const bucket = "signet-uploads";
let s3: S3StandIn;
let transfer: OfficeTransfer;
let office: ReturnType<typeof makeOfficeHandler>;
let container: Container;
let closeConverter: () => Promise<void>;

/** sent records every job as the office function received it. */
const sent: Array<OfficeJob | OfficePing> = [];
/** staged records every key the caller put in the bucket. */
const staged: string[] = [];

/** wire is what Lambda does to a payload: JSON out, JSON back. */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** invokeHandler is the client port with the office function's real handler behind it. */
const invokeHandler: OfficeInvoke = async (job) => {
  sent.push(wire(job));
  return wire(await office(wire(job)));
};

const objectsLeft = () => readdirSync(join(root, "s3", bucket));

beforeAll(async () => {
  s3 = await startS3StandIn({ dataDir: join(root, "s3"), buckets: [bucket], secretAccessKey: "stand-in-secret" });
  const client = s3ClientFor({ region: "us-east-1", endpoint: s3.endpoint, credentials: { accessKeyId: "local", secretAccessKey: "stand-in-secret" } });
  const s3Transfer = createS3OfficeTransfer({ client, bucket });
  // A plain wrapper that notes what was staged: the bucket's contents are checked afterwards.
  transfer = {
    ...s3Transfer,
    put: async (key, bytes) => {
      staged.push(key);
      await s3Transfer.put(key, bytes);
    },
  };
  // The office function's converter is the local LibreOffice one (no SIGNET_OFFICE_FUNCTION here).
  container = testContainer();
  office = makeOfficeHandler(container);
  closeConverter = () => converterOf(container).close();
}, 60_000);

afterAll(async () => {
  await closeConverter?.();
  await s3?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("a small document travels inline", () => {
  it("converts a DOCX through the office function: the PDF's pages and text, nothing staged", async () => {
    const converter = createOfficeWorkerConverter({ invoke: invokeHandler, transfer });
    sent.length = 0;
    staged.length = 0;
    const pdf = await converter.convert(unchecked(fixtureDocx(), "docx"), { to: "pdf" });
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(await pdfPageCount(pdf)).toBe(1);
    const text = await pdfText(pdf);
    for (const line of [fixtureText.title, fixtureText.header, fixtureText.footer]) expect(text).toContain(line);
    const job = sent[0] as OfficeJob;
    expect("base64" in job.input).toBe(true);
    // A place for a large output was offered, presigned, and never used.
    expect(job.outputUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/signet-uploads\/office\/[0-9a-f-]{36}\/output\?.*X-Amz-Signature=/);
    expect(staged).toEqual([]);
    expect(objectsLeft()).toEqual([]);
  });

  it("answers a ping without converting", async () => {
    expect(await office({ kind: "ping" })).toEqual({ ok: true, pong: true });
  });
});

describe("a document over 4 MB travels through the bucket", () => {
  it("stages a 5 MB DOCX under office/, converts it, and deletes what it staged", async () => {
    const converter = createOfficeWorkerConverter({ invoke: invokeHandler, transfer });
    sent.length = 0;
    staged.length = 0;
    const docx = makeLargeDocx(5 * 1024 * 1024, "Large document through the office function");
    expect(docx.length).toBeGreaterThan(4 * 1024 * 1024);
    const pdf = await converter.convert(unchecked(docx, "docx"), { to: "pdf" });
    expect(await pdfText(pdf)).toContain("Large document through the office function");
    expect(staged).toHaveLength(1);
    expect(staged[0]).toMatch(/^office\/[0-9a-f-]{36}\/input$/);
    const job = sent[0] as OfficeJob;
    expect(job.input).toEqual({ url: expect.stringContaining(`/${bucket}/${staged[0]}?`), bytes: docx.length });
    // The payload stays far under Lambda's 6 MB: the document went by URL.
    expect(JSON.stringify(job).length).toBeLessThan(4096);
    expect(objectsLeft()).toEqual([]);
  });

  it("brings a large output back by the presigned PUT and deletes it (the office function's inline limit lowered to 1 KB)", async () => {
    const lowLimit: OfficeInvoke = async (job) =>
      wire(
        await runOfficeJob(wire(job), {
          converter: converterOf(container),
          conversionLimitMs: 60_000,
          limits: {
            maxDocumentBytes: 25 * 1024 * 1024,
            maxEntries: 5000,
            maxUncompressedBytes: 200 * 1024 * 1024,
            maxImagePixels: 100_000_000,
            maxSvgBytes: 10 * 1024 * 1024,
          },
          inlineLimitBytes: 1024,
          readInput: (url, maxBytes) => readPresigned(url, maxBytes, 10_000),
          writeOutput: (url, bytes) => writePresigned(url, bytes, 10_000),
        }),
      );
    let answered: unknown;
    const converter = createOfficeWorkerConverter({
      invoke: async (job, signal) => {
        answered = await lowLimit(job, signal);
        return answered as Awaited<ReturnType<OfficeInvoke>>;
      },
      transfer,
    });
    const pdf = await converter.convert(unchecked(fixtureDocx(), "docx"), { to: "pdf" });
    expect(answered).toEqual({ ok: true, output: { stored: true, bytes: pdf.length } });
    expect(await pdfText(pdf)).toContain(fixtureText.title);
    expect(objectsLeft()).toEqual([]);
  });

  it("deletes the staged input when the conversion fails", async () => {
    const converter = createOfficeWorkerConverter({ invoke: invokeHandler, transfer });
    staged.length = 0;
    // A zip that is no DOCX, padded past the inline limit.
    const zip = new PizZip();
    zip.file("padding.bin", makeLargeDocx(5 * 1024 * 1024), { compression: "STORE" });
    await expectSignetError(converter.convert(unchecked(zip.generate({ type: "nodebuffer" }), "docx"), { to: "pdf" }), "INVALID_DOCUMENT");
    expect(staged).toHaveLength(1);
    expect(objectsLeft()).toEqual([]);
  });
});

describe("failures keep their status through the invoke", () => {
  // One row: what is sent, the code and status the caller raises. The document skips the caller's
  // intake (unchecked), so every refusal is the office function's own intake.
  const zipWith = (name: string, data: Buffer) => {
    const zip = new PizZip(fixtureDocx());
    zip.file(name, data);
    return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
  };
  it.each([
    ["a DOCX with a picture declaring 60000 x 60000", () => zipWith("word/media/image1.png", pngDeclaring(60000, 60000, 64)), "IMAGE_TOO_LARGE", 413],
    ["random bytes called DOCX", () => Buffer.from("not a document at all"), "INVALID_DOCUMENT", 422],
    ["an empty file", () => Buffer.alloc(0), "VALIDATION_ERROR", 400],
  ] as const)("%s: %s", async (_, bytes, code, status) => {
    const converter = createOfficeWorkerConverter({ invoke: invokeHandler, transfer });
    const error = await expectSignetError(converter.convert(unchecked(bytes(), "docx"), { to: "pdf" }), code);
    expect(errorTable[error.code].status).toBe(status);
  });

  it.each([
    ["a job that is not an object", "convert"],
    ["a job whose input URL is a local file", { kind: "convert", from: "docx", to: "pdf", input: { url: "file:///etc/passwd", bytes: 10 } }],
    ["a job whose input URL is plain http elsewhere", { kind: "convert", from: "docx", to: "pdf", input: { url: "http://169.254.169.254/latest", bytes: 10 } }],
    ["a job with an unknown format", { kind: "convert", from: "exe", to: "pdf", input: { base64: "" } }],
  ])("refuses %s with 400, without converting", async (_, event) => {
    const answer = await office(event);
    expect(answer).toMatchObject({ ok: false, error: { code: "VALIDATION_ERROR" } });
  });

  it("stops LibreOffice at the limit the job names (a job's budget is the office function's to enforce), then converts the next job", async () => {
    // No conversion finishes within 1 ms: the limit the job names, far below the function's own 60 s.
    const docx = fixtureDocx({ title: "Budget" }).toString("base64");
    const stopped = await office({ kind: "convert", from: "docx", to: "pdf", input: { base64: docx }, timeoutMs: 1 });
    expect(stopped).toMatchObject({ ok: false, error: { code: "CONVERSION_TIMEOUT" } });
    const converted = await office({ kind: "convert", from: "docx", to: "pdf", input: { base64: docx }, timeoutMs: 60_000 });
    expect(converted).toMatchObject({ ok: true });
    const pdf = Buffer.from((converted as { output: { base64: string } }).output.base64, "base64");
    expect(await pdfText(pdf)).toContain("Budget");
  });

  it("refuses a declared input over its own limit before fetching it", async () => {
    const answer = await office({ kind: "convert", from: "docx", to: "pdf", input: { url: "https://example.invalid/x", bytes: 200 * 1024 * 1024 } });
    expect(answer).toMatchObject({ ok: false, error: { code: "PAYLOAD_TOO_LARGE" } });
  });
});
