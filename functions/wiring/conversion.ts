/**
 * Wiring of conversion (sign's DOCX input, annotate with to=pdf, convert): a container's one
 * converter, configured from config.conversion; it takes only documents intake() prepared
 * (external references removed, image sizes capped), with the limits intakeLimits() gives. With
 * SIGNET_OFFICE_FUNCTION (AWS) it sends each conversion to the office function, where LibreOffice
 * runs; otherwise LibreOffice runs here (npm start, the tests, the office function itself).
 */
import { LambdaClient } from "@aws-sdk/client-lambda";
import type { Config } from "#config";
import { createLibreOfficeConverter, type LibreOfficeConverter, type LibreOfficeConverterOptions } from "#adapters/libreoffice/converter.ts";
import { libreOfficeReadiness } from "#adapters/libreoffice/readiness.ts";
import { createOfficeWorkerConverter, lambdaOfficeInvoke, type OfficeWorkerConverter } from "#adapters/office-worker-converter.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { createS3OfficeTransfer } from "#adapters/s3-office-transfer.ts";
import { s3ClientFor } from "#adapters/s3-upload-store.ts";
import type { IntakeLimits } from "#domain/documents/intake.ts";
import type { Readiness } from "#domain/shared/readiness.ts";
import type { Container } from "#wiring/container.ts";
import { LAMBDA_CONVERSION_TIMEOUT_MS, OFFICE_INVOKE_OVERHEAD_MS, OFFICE_TRANSFER_MS } from "#functions/timeouts.ts";

/** OfficeConverter is a container's converter: LibreOffice in this process, or the office function. */
export type OfficeConverter = LibreOfficeConverter | OfficeWorkerConverter;

/**
 * officeWorker is the converter that invokes the office function, staging large documents in the
 * uploads bucket. Each conversion asks for its limit in the invoke (a job's remaining budget, else
 * the office function's own 76 s) and waits for it plus the invoke's overhead, ended by an abort
 * signal; the client sets no request or socket time-out of its own (the SDK's default: none), which
 * would cut a job's 14-minute invoke, and its agent's TCP keep-alive keeps the idle connection open.
 * Which office function is the stack's choice: the job worker's is office-jobs (15 minutes).
 */
function officeWorker(config: Config, functionName: string): OfficeWorkerConverter {
  const { bucket, s3Endpoint } = config.uploads;
  const { lambdaEndpoint } = config.conversion;
  const client = new LambdaClient({ region: config.region, maxAttempts: 2, ...(lambdaEndpoint ? { endpoint: lambdaEndpoint } : {}) });
  return createOfficeWorkerConverter({
    invoke: lambdaOfficeInvoke({ client, functionName, timeoutMs: LAMBDA_CONVERSION_TIMEOUT_MS }),
    ...(bucket
      ? { transfer: createS3OfficeTransfer({ client: s3ClientFor({ region: config.region, credentials: config.credentials, endpoint: s3Endpoint }), bucket }) }
      : {}),
    timeoutMs: LAMBDA_CONVERSION_TIMEOUT_MS,
    invokeOverheadMs: OFFICE_INVOKE_OVERHEAD_MS,
    transferMs: OFFICE_TRANSFER_MS,
  });
}

/** libreOfficeOptions are the LibreOffice converter's options, every one from the conversion settings (config.ts holds their defaults). */
export function libreOfficeOptions(conversion: Config["conversion"]): LibreOfficeConverterOptions {
  return {
    ...(conversion.soffice ? { soffice: conversion.soffice } : {}),
    timeoutMs: conversion.timeoutMs,
    concurrency: conversion.concurrency,
    queueLength: conversion.queueLength,
    mode: conversion.mode,
    maxConversionsPerProcess: conversion.maxConversionsPerProcess,
    recycle: conversion.recycle,
    isolation: conversion.isolation,
    memoryLimitMb: conversion.memoryLimitMb,
    ...(conversion.profileTemplate ? { profileTemplate: conversion.profileTemplate } : {}),
    ...(conversion.tempDir ? { tempDir: conversion.tempDir } : {}),
  };
}

/**
 * createConverter builds a container's converter from config: LibreOffice here, or the office
 * function when SIGNET_OFFICE_FUNCTION names one. Creating it starts nothing; the first conversion
 * or warm() does. When the process exits, every LibreOffice it started is killed (a process hook
 * installed here, once per converter).
 */
function createConverter(config: Config): OfficeConverter {
  const { conversion } = config;
  const inProcess = conversion.officeFunction ? undefined : createLibreOfficeConverter(libreOfficeOptions(conversion));
  const inner = inProcess ?? officeWorker(config, conversion.officeFunction!);
  const office: OfficeConverter = {
    ...inner,
    convert: (document, options) => {
      // What was taken out, never the document: part names and reference kinds (the targets may be private).
      if (document.removed.length > 0) logger.info("external references removed before conversion", { count: document.removed.length });
      return inner.convert(document, options);
    },
  };
  if (inProcess) process.on("exit", () => inProcess.stopNow());
  return office;
}

/** converter is a container's one converter (sign, annotate and convert share it), made on first use; creating it starts nothing. */
export function converter(container: Container): OfficeConverter {
  return container.part("converter", (own) => createConverter(own.config));
}

/** intakeLimits are the limits intake() applies under a config: the document limits, image pixels and SVG parts. */
export function intakeLimits(config: Config): IntakeLimits {
  const { documentLimits, limits } = config;
  return { ...documentLimits, maxImagePixels: limits.maxImagePixels, maxSvgBytes: limits.maxImageBytes };
}

/** libreOfficeReady says whether the configured soffice (SIGNET_SOFFICE, else PATH, /opt/...) can run here; starts nothing. */
export function libreOfficeReady(config: Pick<Config, "conversion">): Promise<Readiness> {
  return libreOfficeReadiness(config.conversion.soffice);
}
