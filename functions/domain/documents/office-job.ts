import { SOURCE_FORMATS, type SourceFormat, TARGET_FORMATS, type TargetFormat } from "#domain/documents/formats.ts";
import { SignetError, errorCodes, type ErrorCode, type ErrorDetail, type NextStep } from "#domain/shared/errors.ts";

/*
 * What the converting functions and the office function (functions/office.ts, where LibreOffice
 * runs on AWS) say to each other over one synchronous Lambda invoke. Small documents
 * travel inline as base64; larger ones through the uploads bucket by presigned URLs that the caller
 * signs, so the office function holds no S3 permission of its own. Pure: types and checks only.
 */

/**
 * INLINE_DOCUMENT_BYTES is the largest document that travels inline: its base64 (4/3 of it) plus
 * the JSON around it stays under Lambda's 6 MB synchronous invoke limit, which holds each way (4 MiB -> 5.33 MiB). Larger inputs and
 * outputs go through presigned URLs.
 */
export const INLINE_DOCUMENT_BYTES = 4 * 1024 * 1024;

/** OfficeInput is the document of a job: inline, or a presigned GET URL and its size. */
export type OfficeInput = { base64: string } | { url: string; bytes: number };

/** OfficeJob asks the office function for one conversion (a ConversionJob without its bytes, plus where they are). */
export interface OfficeJob {
  kind: "convert";
  input: OfficeInput;
  from: SourceFormat;
  to: TargetFormat;
  pdfa?: boolean;
  maxPages?: number;
  /** A presigned PUT URL for an output too large to answer inline; without it such an output is refused. */
  outputUrl?: string;
  /**
   * The conversion's time limit in ms (a job's remaining budget, or the usual limit); the office
   * function cuts it to its own (SIGNET_CONVERSION_TIMEOUT_MS) and uses its own when it is absent.
   */
  timeoutMs?: number;
}

/** OfficePing starts the office function (and its LibreOffice) without converting: the callers' init phase sends it. */
export interface OfficePing {
  kind: "ping";
}

/** OfficeFailure is a SignetError as it crosses the invoke: code, message and the parts the error table uses. */
export interface OfficeFailure {
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  retryAfterSeconds?: number;
  next?: NextStep;
}

/** OfficeAnswer is the office function's answer: the output inline or stored at the job's outputUrl, or a failure. */
export type OfficeAnswer =
  | { ok: true; output: { base64: string } | { stored: true; bytes: number } }
  | { ok: true; pong: true }
  | { ok: false; error: OfficeFailure };

const sourceFormats: readonly string[] = SOURCE_FORMATS;
const targetFormats: readonly string[] = TARGET_FORMATS;

function invalidJob(issue: string): SignetError {
  return new SignetError("VALIDATION_ERROR", `The office job is malformed: ${issue}.`, { details: [{ field: "job", issue }] });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * parseOfficeJob checks an invoke event field by field (the office function does not trust its
 * caller's shape either): VALIDATION_ERROR naming the first bad member.
 */
export function parseOfficeJob(event: unknown): OfficeJob | OfficePing {
  if (!isRecord(event)) throw invalidJob("not an object");
  if (event.kind === "ping") return { kind: "ping" };
  if (event.kind !== "convert") throw invalidJob("kind is neither convert nor ping");
  const { input, from, to, pdfa, maxPages, outputUrl, timeoutMs } = event;
  if (typeof from !== "string" || !sourceFormats.includes(from)) throw invalidJob("from is not a source format");
  if (typeof to !== "string" || !targetFormats.includes(to)) throw invalidJob("to is not a target format");
  if (pdfa !== undefined && typeof pdfa !== "boolean") throw invalidJob("pdfa is not a boolean");
  if (maxPages !== undefined && !(Number.isInteger(maxPages) && (maxPages as number) > 0)) throw invalidJob("maxPages is not a positive integer");
  if (outputUrl !== undefined && typeof outputUrl !== "string") throw invalidJob("outputUrl is not a string");
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && (timeoutMs as number) > 0)) throw invalidJob("timeoutMs is not a positive integer");
  let parsedInput: OfficeInput;
  if (isRecord(input) && typeof input.base64 === "string") parsedInput = { base64: input.base64 };
  else if (isRecord(input) && typeof input.url === "string" && Number.isInteger(input.bytes) && (input.bytes as number) > 0) {
    parsedInput = { url: input.url, bytes: input.bytes as number };
  } else throw invalidJob("input is neither {base64} nor {url, bytes}");
  return {
    kind: "convert",
    input: parsedInput,
    from: from as SourceFormat,
    to: to as TargetFormat,
    ...(pdfa === undefined ? {} : { pdfa }),
    ...(maxPages === undefined ? {} : { maxPages: maxPages as number }),
    ...(outputUrl === undefined ? {} : { outputUrl }),
    ...(timeoutMs === undefined ? {} : { timeoutMs: timeoutMs as number }),
  };
}

/** toOfficeFailure turns what a conversion threw into the answer's failure: a SignetError keeps its code; anything else is a 500 without its text. */
export function toOfficeFailure(error: unknown): OfficeFailure {
  if (!(error instanceof SignetError)) return { code: "INTERNAL_ERROR", message: "The office function failed unexpectedly." };
  return {
    code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
    ...(error.next ? { next: error.next } : {}),
  };
}

/**
 * fromOfficeFailure is the SignetError a caller raises for a failure answer, so a 413, 422 or 504
 * made by the office function keeps its status through the API. An unknown code becomes a 500.
 */
export function fromOfficeFailure(failure: OfficeFailure): SignetError {
  const known = (errorCodes as readonly string[]).includes(failure.code);
  const code: ErrorCode = known ? failure.code : "INTERNAL_ERROR";
  return new SignetError(code, String(failure.message), {
    ...(Array.isArray(failure.details) ? { details: failure.details } : {}),
    ...(typeof failure.retryAfterSeconds === "number" ? { retryAfterSeconds: failure.retryAfterSeconds } : {}),
    ...(failure.next ? { next: failure.next } : {}),
    cause: new Error(`office function answered ${failure.code}`),
  });
}
