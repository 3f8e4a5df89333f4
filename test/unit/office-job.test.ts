// What crosses the invoke between the converting functions and the office function:
// the job's checks, SignetErrors as values and back, and what the Lambda client port makes of
// failures around the function (a fake client: a plain object with send()).
import type { LambdaClient } from "@aws-sdk/client-lambda";
import { S3Client } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { createOfficeWorkerConverter, lambdaOfficeInvoke, type OfficeInvoke } from "#adapters/office-worker-converter.ts";
import type { ConversionOptions, Converter } from "#domain/documents/converter.ts";
import { runOfficeJob } from "#domain/documents/office-worker.ts";
import { createS3OfficeTransfer } from "#adapters/s3-office-transfer.ts";
import { fromOfficeFailure, parseOfficeJob, toOfficeFailure, type OfficeJob, type OfficePing } from "#domain/documents/office-job.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { toErrorResponse } from "#http/error-response.ts";
import { errorTable } from "#http/error-table.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";
import { unchecked } from "#test/helpers/prepared-documents.ts";

const job: OfficeJob = { kind: "convert", input: { base64: "UEsDBA==" }, from: "docx", to: "pdf" };

describe("parseOfficeJob", () => {
  it.each([
    ["a ping", { kind: "ping" }, { kind: "ping" }],
    ["an inline job", job, job],
    [
      "a job by URL with every option",
      { ...job, input: { url: "https://b.s3.eu-west-1.amazonaws.com/office/x/input", bytes: 5 }, pdfa: true, maxPages: 3, outputUrl: "https://o" },
      { ...job, input: { url: "https://b.s3.eu-west-1.amazonaws.com/office/x/input", bytes: 5 }, pdfa: true, maxPages: 3, outputUrl: "https://o" },
    ],
    ["a job with its time limit", { ...job, timeoutMs: 867_000 }, { ...job, timeoutMs: 867_000 }],
  ])("accepts %s", (_, event, parsed) => {
    expect(parseOfficeJob(event)).toEqual(parsed);
  });

  it.each([
    ["null", null, "not an object"],
    ["an unknown kind", { kind: "shell" }, "kind is neither convert nor ping"],
    ["an unknown source format", { ...job, from: "exe" }, "from is not a source format"],
    ["an unknown target", { ...job, to: "html" }, "to is not a target format"],
    ["a string pdfa", { ...job, pdfa: "yes" }, "pdfa is not a boolean"],
    ["zero pages", { ...job, maxPages: 0 }, "maxPages is not a positive integer"],
    ["a time limit in seconds as text", { ...job, timeoutMs: "900" }, "timeoutMs is not a positive integer"],
    ["a negative time limit", { ...job, timeoutMs: -1 }, "timeoutMs is not a positive integer"],
    ["no input", { ...job, input: undefined }, "input is neither {base64} nor {url, bytes}"],
    ["a URL without its size", { ...job, input: { url: "https://x" } }, "input is neither {base64} nor {url, bytes}"],
  ])("refuses %s with VALIDATION_ERROR", (_, event, issue) => {
    expect(() => parseOfficeJob(event)).toThrow(expect.objectContaining({ code: "VALIDATION_ERROR", details: [{ field: "job", issue }] }));
  });
});

describe("failures cross the invoke with their code", () => {
  it.each([
    ["IMAGE_TOO_LARGE", 413],
    ["PAYLOAD_TOO_LARGE", 413],
    ["INVALID_DOCUMENT", 422],
    ["CONVERSION_TIMEOUT", 504],
    ["RATE_LIMIT_ERROR", 429],
    ["CONVERSION_FAILED", 500],
  ] as const)("%s stays %i", (code, status) => {
    const original = new SignetError(code, "what to fix", { details: [{ field: "document", issue: "x" }], retryAfterSeconds: 3 });
    const back = fromOfficeFailure(JSON.parse(JSON.stringify(toOfficeFailure(original))));
    expect(back).toMatchObject({ code, message: "what to fix", details: [{ field: "document", issue: "x" }], retryAfterSeconds: 3 });
    expect(errorTable[back.code].status).toBe(status);
  });

  it("turns anything but a SignetError into a 500 without its text, and an unknown code too", () => {
    expect(toOfficeFailure(new Error("/tmp/secret path"))).toEqual({ code: "INTERNAL_ERROR", message: "The office function failed unexpectedly." });
    expect(fromOfficeFailure({ code: "NO_SUCH_CODE" as never, message: "m" }).code).toBe("INTERNAL_ERROR");
  });
});

describe("lambdaOfficeInvoke", () => {
  const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));
  const clientAnswering = (send: () => Promise<unknown>) => ({ send }) as unknown as LambdaClient;
  const named = (name: string) => Object.assign(new Error(name), { name });

  // One row: what the fake client does, the answer's failure code (or the parsed answer).
  it.each([
    ["a normal answer", async () => ({ StatusCode: 200, Payload: bytes({ ok: true, pong: true }) }), { ok: true, pong: true }],
    [
      "Lambda's time-out of the function",
      async () => ({
        StatusCode: 200,
        FunctionError: "Unhandled",
        Payload: bytes({ errorMessage: "2026-11-25T18:00:00Z abc Task timed out after 83.00 seconds" }),
      }),
      { ok: false, error: { code: "CONVERSION_TIMEOUT" } },
    ],
    [
      "the function running out of memory",
      async () => ({ StatusCode: 200, FunctionError: "Unhandled", Payload: bytes({ errorType: "Runtime.ExitError", errorMessage: "signal: killed" }) }),
      { ok: false, error: { code: "CONVERSION_FAILED" } },
    ],
    [
      "throttling",
      async () => {
        throw named("TooManyRequestsException");
      },
      { ok: false, error: { code: "RATE_LIMIT_ERROR", retryAfterSeconds: 5 } },
    ],
    [
      "Lambda unreachable",
      async () => {
        throw named("ServiceException");
      },
      { ok: false, error: { code: "SERVICE_UNAVAILABLE" } },
    ],
    ["an unreadable payload", async () => ({ StatusCode: 200, Payload: Buffer.from("<html>") }), { ok: false, error: { code: "INTERNAL_ERROR" } }],
    [
      "a function Lambda made Inactive after weeks idle",
      async () => {
        throw Object.assign(named("ResourceNotReadyException"), { message: "The function is inactive and is being restored: try again later." });
      },
      { ok: false, error: { code: "SERVICE_UNAVAILABLE", retryAfterSeconds: 60, message: expect.stringContaining("waking up") } },
    ],
    [
      "a function still Pending",
      async () => {
        throw Object.assign(named("ResourceConflictException"), {
          message: "The operation cannot be performed at this time. The function is currently in the following state: Pending",
        });
      },
      { ok: false, error: { code: "SERVICE_UNAVAILABLE", retryAfterSeconds: 60 } },
    ],
    [
      "another conflict (an update in progress is not a wake-up)",
      async () => {
        throw Object.assign(named("ResourceConflictException"), { message: "An update is in progress for resource" });
      },
      { ok: false, error: { code: "SERVICE_UNAVAILABLE", retryAfterSeconds: 5 } },
    ],
  ])("%s", async (_, send, answer) => {
    const invoke = lambdaOfficeInvoke({ client: clientAnswering(send), functionName: "office", timeoutMs: 76_000 });
    expect(await invoke({ kind: "ping" }, new AbortController().signal)).toMatchObject(answer);
  });

  it("names the job's own limit when a job's long conversion runs out", async () => {
    const controller = new AbortController();
    const invoke = lambdaOfficeInvoke({
      client: clientAnswering(async () => {
        controller.abort();
        throw named("AbortError");
      }),
      functionName: "office-jobs",
      timeoutMs: 76_000,
    });
    const answer = await invoke({ ...job, timeoutMs: 867_000 }, controller.signal);
    expect(answer).toMatchObject({ ok: false, error: { code: "CONVERSION_TIMEOUT", message: expect.stringContaining("867 s") } });
  });

  it("answers CONVERSION_TIMEOUT naming the limit when the caller's deadline passes", async () => {
    const controller = new AbortController();
    const invoke = lambdaOfficeInvoke({
      client: clientAnswering(async () => {
        controller.abort();
        throw named("AbortError");
      }),
      functionName: "office",
      timeoutMs: 76_000,
    });
    expect(await invoke(job, controller.signal)).toMatchObject({ ok: false, error: { code: "CONVERSION_TIMEOUT", message: expect.stringContaining("76 s") } });
  });
});

describe("a converter whose office function is waking up", () => {
  it("answers 503 with Retry-After: 60 through the Converter port and the error table", async () => {
    const client = {
      send: async () => {
        throw Object.assign(new Error("The function is inactive and is being restored."), { name: "ResourceNotReadyException" });
      },
    } as unknown as LambdaClient;
    const converter = createOfficeWorkerConverter({ invoke: lambdaOfficeInvoke({ client, functionName: "office", timeoutMs: 76_000 }) });
    const error = await converter.convert(unchecked(Buffer.from("PK"), "docx"), { to: "pdf" }).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: "SERVICE_UNAVAILABLE", retryAfterSeconds: 60 });
    const response = toErrorResponse(error, "req-1");
    expect(response.statusCode).toBe(503);
    expect(response.headers).toMatchObject({ "Retry-After": "60" });
    expect(JSON.parse(response.body as string)).toMatchObject({ message: "The converter is waking up (it was idle for a long time); retry in a minute." });
  });
});

describe("createS3OfficeTransfer", () => {
  it("answers 503 when it cannot presign (no credentials), not a bare 500", async () => {
    const client = new S3Client({
      region: "eu-west-1",
      credentials: async () => {
        throw new Error("no credentials here");
      },
    });
    await expectSignetError(createS3OfficeTransfer({ client, bucket: "b" }).presign("office/x/output", "PUT", 300), "SERVICE_UNAVAILABLE");
  });
});

describe("a conversion's time limit crosses the invoke", () => {
  // What the office function receives.
  const sent: Array<OfficeJob | OfficePing> = [];
  const recording: OfficeInvoke = async (sentJob) => {
    sent.push(sentJob);
    return { ok: true, output: { base64: Buffer.from("%PDF-1.7").toString("base64") } };
  };
  const converter = createOfficeWorkerConverter({ invoke: recording, timeoutMs: 76_000, invokeOverheadMs: 17_000, transferMs: 3_000 });
  const docx = unchecked(Buffer.from("PK"), "docx");

  it.each([
    ["a request without one (every synchronous request): the usual limit", {}, 76_000],
    ["a job's 890 s (a fresh worker): less the caller's transfers and the invoke's overhead", { timeoutMs: 890_000 }, 867_000],
    ["a job's 100 s", { timeoutMs: 100_000 }, 77_000],
    ["a job nearly out of time: at least 1 s", { timeoutMs: 5_000 }, 1_000],
  ])("%s", async (_, limit, expected) => {
    sent.length = 0;
    await converter.convert(docx, { to: "pdf", ...limit });
    expect(sent.map((sentJob) => (sentJob as OfficeJob).timeoutMs)).toEqual([expected]);
  });
});

describe("the office function keeps a job's limit within its own", () => {
  const options: ConversionOptions[] = [];
  const recordingConverter: Converter = {
    convert: async (_, given) => {
      options.push(given);
      return Buffer.from("%PDF-1.7");
    },
  };
  const deps = (conversionLimitMs: number) => ({
    converter: recordingConverter,
    conversionLimitMs,
    limits: { maxDocumentBytes: 1024, maxEntries: 10, maxUncompressedBytes: 1024, maxImagePixels: 100, maxSvgBytes: 100 },
    inlineLimitBytes: 1024,
    readInput: () => Promise.reject(new Error("inline only")),
    writeOutput: () => Promise.reject(new Error("inline only")),
  });
  const text = { kind: "convert", input: { base64: Buffer.from("hello").toString("base64") }, from: "md", to: "pdf" } as const;

  it.each([
    ["the job's limit when it is within the function's", 867_000, 807_000, 807_000],
    ["its own when the job names none", 867_000, undefined, 867_000],
    ["its own when the job asks for more (a job's 15 minutes sent to the routes' office function)", 76_000, 867_000, 76_000],
  ])("converts within %s", async (_, own, asked, expected) => {
    options.length = 0;
    const answer = await runOfficeJob({ ...text, ...(asked === undefined ? {} : { timeoutMs: asked }) }, deps(own));
    expect(answer).toMatchObject({ ok: true });
    expect(options.map((given) => given.timeoutMs)).toEqual([expected]);
  });
});
