import type { Converter } from "#domain/documents/converter.ts";
import { type IntakeLimits, intake } from "#domain/documents/intake.ts";
import { parseOfficeJob, toOfficeFailure, type OfficeAnswer } from "#domain/documents/office-job.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";

/** OfficeWorkerDeps are what the office function's handler needs: its converter, its own limits and the two presigned transfers. */
export interface OfficeWorkerDeps {
  /** The LibreOffice converter (it takes only what intake() prepared). */
  converter: Converter;
  /** The office function's own limits: it runs intake() on every document again rather than trust its caller's checks. */
  limits: IntakeLimits;
  /** The longest conversion this function allows (its SIGNET_CONVERSION_TIMEOUT_MS, inside its Lambda time-out): a job's timeoutMs is cut to it. */
  conversionLimitMs: number;
  /** Outputs up to this size are answered inline. */
  inlineLimitBytes: number;
  /** readInput GETs a presigned URL, refusing more than maxBytes. */
  readInput(url: string, maxBytes: number): Promise<Uint8Array>;
  /** writeOutput PUTs the output to a presigned URL. */
  writeOutput(url: string, bytes: Uint8Array): Promise<void>;
  /** Hears every failure before it becomes an answer (for the log: the cause stays here). */
  onError?(error: unknown): void;
}

/**
 * runOfficeJob is the office function's work for one invoke event (functions/office.ts): parse the
 * job, fetch the input, run the same intake() as the API does (type, zip bombs, outside
 * references, images), convert within the job's time limit cut to the function's own, and answer
 * the output inline or stored at the job's output URL. It never throws: failures are answered as
 * values with the SignetError's code, which the caller raises again
 * (functions/adapters/office-worker-converter.ts).
 */
export async function runOfficeJob(event: unknown, deps: OfficeWorkerDeps): Promise<OfficeAnswer> {
  try {
    const job = parseOfficeJob(event);
    if (job.kind === "ping") return { ok: true, pong: true };
    const declared = "url" in job.input ? job.input.bytes : Math.floor((job.input.base64.length * 3) / 4);
    if (declared > deps.limits.maxDocumentBytes) {
      throw new SignetError("PAYLOAD_TOO_LARGE", `The file is larger than the ${formatBytes(deps.limits.maxDocumentBytes)} limit.`);
    }
    const bytes = "url" in job.input ? await deps.readInput(job.input.url, job.input.bytes) : Buffer.from(job.input.base64, "base64");
    const prepared = await intake(bytes, job.from, deps.limits);
    const output = await deps.converter.convert(prepared, {
      to: job.to,
      ...(job.pdfa === undefined ? {} : { pdfa: job.pdfa }),
      ...(job.maxPages === undefined ? {} : { maxPages: job.maxPages }),
      // The caller's budget (a job's 15 minutes on the jobs' office function), never beyond this function's own limit.
      timeoutMs: Math.min(job.timeoutMs ?? deps.conversionLimitMs, deps.conversionLimitMs),
    });
    if (output.length <= deps.inlineLimitBytes) return { ok: true, output: { base64: output.toString("base64") } };
    if (!job.outputUrl) {
      throw new SignetError("PAYLOAD_TOO_LARGE", `The converted document (${formatBytes(output.length)}) is too large to answer without an output URL.`);
    }
    await deps.writeOutput(job.outputUrl, output);
    return { ok: true, output: { stored: true, bytes: output.length } };
  } catch (error) {
    deps.onError?.(error);
    return { ok: false, error: toOfficeFailure(error) };
  }
}
