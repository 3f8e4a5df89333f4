import { randomUUID } from "node:crypto";
import { InvokeCommand, type LambdaClient } from "@aws-sdk/client-lambda";
import { logger } from "#adapters/powertools-logger.ts";
import { type ConversionJob, type Converter, conversionJob } from "#domain/documents/converter.ts";
import {
  INLINE_DOCUMENT_BYTES,
  fromOfficeFailure,
  type OfficeAnswer,
  type OfficeFailure,
  type OfficeInput,
  type OfficeJob,
  type OfficePing,
} from "#domain/documents/office-job.ts";

/** OfficeInvoke is the client port: send one job to the office function, answer what it said (failures as values, never thrown). */
export type OfficeInvoke = (job: OfficeJob | OfficePing, signal: AbortSignal) => Promise<OfficeAnswer>;

/** OfficeTransfer is where documents too large for the invoke payload wait (the uploads bucket on AWS, the S3 stand-in locally). */
export interface OfficeTransfer {
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** presign makes a URL that allows one GET or PUT of exactly `key` for expiresInSeconds, with the caller's rights. */
  presign(key: string, method: "GET" | "PUT", expiresInSeconds: number): Promise<string>;
  /** read answers the object's bytes; more than maxBytes is refused. */
  read(key: string, maxBytes: number): Promise<Buffer>;
  remove(key: string): Promise<void>;
}

/** OfficeWorkerConverterOptions configure the converter; `invoke` is required, the rest has defaults. */
export interface OfficeWorkerConverterOptions {
  invoke: OfficeInvoke;
  /** Without it, documents over inlineLimitBytes are refused (503) and large outputs cannot come back. */
  transfer?: OfficeTransfer;
  /** Inputs and outputs up to this size travel inline as base64 (INLINE_DOCUMENT_BYTES). */
  inlineLimitBytes: number;
  /** Folder of the staged objects in the bucket (the stack grants exactly this prefix and expires it after a day). */
  keyPrefix: string;
  /** Lifetime of the presigned URLs. */
  urlExpirySeconds: number;
  /** The conversion limit asked for when a request names none (the office function's own: LAMBDA_CONVERSION_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * What one invoke adds to the conversion it asks for (the office function's cold start, its transfers
   * and its answer: OFFICE_INVOKE_OVERHEAD_MS): the caller gives up on an invoke after the limit plus this.
   */
  invokeOverheadMs: number;
  /** One move of a document through the bucket (OFFICE_TRANSFER_MS): a request's own time limit keeps two for the caller's. */
  transferMs: number;
  /** Largest output read back from the bucket. */
  maxOutputBytes: number;
}

/** OfficeWorkerConverter is the Converter port plus the lifecycle the process owner calls (as the LibreOffice converter has). */
export interface OfficeWorkerConverter extends Converter {
  /** warm starts the office function (one ping); a failure rejects. */
  warm(): Promise<void>;
  /** startEarly pings the office function so its cold start overlaps the caller's; waits at most maxWaitMs and never rejects. */
  startEarly(maxWaitMs: number): Promise<void>;
  /** close has nothing to stop: LibreOffice runs elsewhere. */
  close(): Promise<void>;
  /** isolation is undefined here: LibreOffice's isolation is the office function's (its VPC), not this process's. */
  isolation(): undefined;
}

/** OFFICE_KEY_PREFIX is where callers stage documents for the office function in the uploads bucket (infra grants it and opens the S3 endpoint to it alone). */
export const OFFICE_KEY_PREFIX = "office/";

const defaults: Omit<OfficeWorkerConverterOptions, "invoke"> = {
  inlineLimitBytes: INLINE_DOCUMENT_BYTES,
  keyPrefix: OFFICE_KEY_PREFIX,
  urlExpirySeconds: 300,
  timeoutMs: 60_000,
  invokeOverheadMs: 17_000,
  transferMs: 3_000,
  maxOutputBytes: 256 * 1024 * 1024,
};

function failure(code: OfficeFailure["code"], message: string, extra: Partial<OfficeFailure> = {}): OfficeAnswer {
  return { ok: false, error: { code, message, ...extra } };
}

/**
 * conversionLimitMs is the limit a request's conversion asks the office function for: the usual one
 * when the request names none (every synchronous request), else what the request's own limit (a
 * job's remaining budget) leaves after the caller's two transfers and the invoke's overhead.
 */
function conversionLimitMs(settings: OfficeWorkerConverterOptions, request: ConversionJob): number {
  if (request.timeoutMs === undefined) return settings.timeoutMs;
  return Math.max(1_000, request.timeoutMs - 2 * settings.transferMs - settings.invokeOverheadMs);
}

/** officeJob is the conversion job for a request whose document travels as `input`, within timeoutMs. */
function officeJob(request: ConversionJob, input: OfficeInput, outputUrl: string | undefined, timeoutMs: number): OfficeJob {
  return {
    kind: "convert",
    input,
    from: request.from,
    to: request.to,
    ...(request.pdfa === undefined ? {} : { pdfa: request.pdfa }),
    ...(request.maxPages === undefined ? {} : { maxPages: request.maxPages }),
    ...(outputUrl ? { outputUrl } : {}),
    timeoutMs,
  };
}

/** removeStaged deletes the staged objects of one job; a failed delete is logged (the lifecycle rule removes it later). */
async function removeStaged(transfer: OfficeTransfer, keys: string[]): Promise<void> {
  await Promise.all(
    keys.map((key) =>
      transfer.remove(key).catch((error: unknown) => logger.warn("a staged office object could not be deleted", { key, error: String(error) })),
    ),
  );
}

/**
 * convertThroughOffice runs one conversion job: the document inline when small, else staged with a
 * presigned GET; the output inline, or read back from where the office function PUT it. Whatever
 * was staged is deleted afterwards, on failure too.
 */
async function convertThroughOffice(
  settings: OfficeWorkerConverterOptions,
  request: ConversionJob,
  stage: (key: string, bytes: Uint8Array) => Promise<OfficeInput>,
): Promise<Buffer> {
  const { invoke, transfer } = settings;
  const base = `${settings.keyPrefix}${randomUUID()}`;
  const inputKey = `${base}/input`;
  const outputKey = `${base}/output`;
  const staged: string[] = [];
  let clean = false;
  try {
    const large = request.bytes.length > settings.inlineLimitBytes;
    if (large) staged.push(inputKey);
    const input: OfficeInput = large ? await stage(inputKey, request.bytes) : { base64: Buffer.from(request.bytes).toString("base64") };
    // Presigning is a local signature (no request): every job may get a place for a large output.
    const outputUrl = transfer ? await transfer.presign(outputKey, "PUT", settings.urlExpirySeconds) : undefined;
    const limitMs = conversionLimitMs(settings, request);
    const answer = await invoke(officeJob(request, input, outputUrl, limitMs), AbortSignal.timeout(limitMs + settings.invokeOverheadMs));
    if (!answer.ok) throw fromOfficeFailure(answer.error);
    if (!("output" in answer)) throw new Error("the office function answered a conversion with a pong");
    if ("base64" in answer.output) {
      clean = true;
      return Buffer.from(answer.output.base64, "base64");
    }
    if (!transfer) throw new Error("the office function stored an output nobody asked it to store");
    staged.push(outputKey);
    const output = await transfer.read(outputKey, settings.maxOutputBytes);
    clean = true;
    return output;
  } finally {
    // A failed or abandoned job may have left an output behind (the office function stored it,
    // then the answer was lost): remove it too. A clean inline answer stored nothing.
    if (!clean && transfer && !staged.includes(outputKey)) staged.push(outputKey);
    if (transfer && staged.length > 0) await removeStaged(transfer, staged);
  }
}

/**
 * createOfficeWorkerConverter converts by asking the office function: the document goes
 * inline when small, else to `<keyPrefix><id>/input` with a presigned GET; the office function may
 * PUT a large output to `<keyPrefix><id>/output` by a presigned URL. Both objects are deleted
 * afterwards, on failure too (the bucket's lifecycle rule catches what a crash leaves). Failure
 * answers become the SignetErrors the LibreOffice converter raises, so statuses stay the same.
 */
export function createOfficeWorkerConverter(
  options: Partial<OfficeWorkerConverterOptions> & Pick<OfficeWorkerConverterOptions, "invoke">,
): OfficeWorkerConverter {
  const settings: OfficeWorkerConverterOptions = { ...defaults, ...options };
  const { invoke, transfer } = settings;
  let early: Promise<void> | undefined;

  async function ping(): Promise<void> {
    const answer = await invoke({ kind: "ping" }, AbortSignal.timeout(settings.timeoutMs + settings.invokeOverheadMs));
    if (!answer.ok) throw fromOfficeFailure(answer.error);
  }

  async function stage(key: string, bytes: Uint8Array): Promise<OfficeInput> {
    if (!transfer) throw fromOfficeFailure(noTransfer(bytes.length));
    await transfer.put(key, bytes);
    return { url: await transfer.presign(key, "GET", settings.urlExpirySeconds), bytes: bytes.length };
  }

  function noTransfer(bytes: number): OfficeFailure {
    return {
      code: "SERVICE_UNAVAILABLE",
      message: `Documents over ${Math.floor(settings.inlineLimitBytes / 1024 / 1024)} MB cannot be converted on this deployment right now.`,
      details: [{ field: "document", issue: `${bytes} bytes, and no bucket is configured for the office function` }],
    };
  }

  return {
    // The office function takes the prepared bytes and runs intake() on them again (defence in depth).
    convert: (document, options) => convertThroughOffice(settings, conversionJob(document, options), stage),

    async warm() {
      await ping();
    },

    async startEarly(maxWaitMs) {
      early ??= ping().catch((error: unknown) =>
        logger.warn("the office function could not be started early; the first conversion starts it", { error: String(error) }),
      );
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([early, new Promise((resolve) => (timer = setTimeout(resolve, maxWaitMs)))]);
      clearTimeout(timer);
    },

    async close() {},

    isolation() {
      return undefined;
    },
  };
}

/**
 * isWakingUp tells Lambda's "not ready yet" refusals: a VPC function idle for weeks turns Inactive
 * and its first invoke fails with ResourceNotReadyException while Lambda recreates its network
 * interfaces (a minute or so); a function still being created or updated is Pending
 * (ResourceConflictException naming that state).
 */
function isWakingUp(name: string, message: string): boolean {
  return name === "ResourceNotReadyException" || (name === "ResourceConflictException" && /\bPending\b/.test(message));
}

/**
 * lambdaOfficeInvoke is the OfficeInvoke of AWS: one synchronous (RequestResponse) invoke of the
 * office function. What goes wrong around the function, rather than inside its handler, becomes a
 * failure value: a time-out or crash of the function, throttling, a function still waking up
 * (503 with Retry-After: 60), Lambda unreachable.
 */
export function lambdaOfficeInvoke(options: { client: LambdaClient; functionName: string; timeoutMs: number }): OfficeInvoke {
  const { client, functionName } = options;
  return async (job, signal) => {
    // The limit this job asked for (a job's budget), else the office function's own.
    const limitMs = job.kind === "convert" && job.timeoutMs !== undefined ? job.timeoutMs : options.timeoutMs;
    const timedOut = () =>
      failure(
        "CONVERSION_TIMEOUT",
        `The conversion did not finish within ${Math.round(limitMs / 1000)} s and was stopped; simplify or split the document and try again.`,
      );
    let answer: { Payload?: Uint8Array; FunctionError?: string };
    try {
      answer = await client.send(
        new InvokeCommand({ FunctionName: functionName, InvocationType: "RequestResponse", Payload: Buffer.from(JSON.stringify(job)) }),
        { abortSignal: signal },
      );
    } catch (error) {
      const name = (error as { name?: string }).name ?? "";
      logger.warn("the office function could not be invoked", { error: String(error) });
      if (signal.aborted || name === "AbortError" || name === "TimeoutError") return timedOut();
      if (name === "TooManyRequestsException" || name === "EC2ThrottledException") {
        return failure("RATE_LIMIT_ERROR", "The converter is busy; retry in 5 s.", { retryAfterSeconds: 5 });
      }
      if (isWakingUp(name, String((error as { message?: unknown }).message ?? ""))) {
        return failure("SERVICE_UNAVAILABLE", "The converter is waking up (it was idle for a long time); retry in a minute.", { retryAfterSeconds: 60 });
      }
      return failure("SERVICE_UNAVAILABLE", "Document conversion is not available right now; retry in a moment.", { retryAfterSeconds: 5 });
    }
    const text = answer.Payload ? Buffer.from(answer.Payload).toString("utf8") : "";
    if (answer.FunctionError) {
      // The handler never throws (functions/office.ts): this is the runtime's own error (time-out, out of memory, crash).
      logger.warn("the office function failed", { functionError: answer.FunctionError, payload: text.slice(0, 500) });
      if (text.includes("Task timed out")) return timedOut();
      return failure(
        "CONVERSION_FAILED",
        "LibreOffice stopped with an error while converting this document. Open and save it again in a word processor, or remove unusual content, and retry.",
      );
    }
    try {
      return JSON.parse(text) as OfficeAnswer;
    } catch {
      return failure("INTERNAL_ERROR", "The office function answered something unreadable.");
    }
  };
}
