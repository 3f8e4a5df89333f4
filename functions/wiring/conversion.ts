/**
 * Wiring of conversion (sign's DOCX input, annotate with to=pdf, convert): the one converter of
 * this process, configured from config.conversion, behind the input checks every document passes
 * before LibreOffice sees it (external references removed, image sizes capped). With
 * SIGNET_OFFICE_FUNCTION (AWS) it sends each conversion to the office function, where LibreOffice
 * runs; otherwise LibreOffice runs here (npm start, the tests, the office function itself).
 */
import { LambdaClient } from "@aws-sdk/client-lambda";
import { config, type Config } from "#config";
import { createLibreOfficeConverter, type LibreOfficeConverter, type LibreOfficeConverterOptions } from "#adapters/libreoffice/converter.ts";
import { libreOfficeReadiness } from "#adapters/libreoffice/readiness.ts";
import { createOfficeWorkerConverter, lambdaOfficeInvoke, type OfficeWorkerConverter } from "#adapters/office-worker-converter.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { createS3OfficeTransfer } from "#adapters/s3-office-transfer.ts";
import { s3ClientFor } from "#adapters/s3-upload-store.ts";
import { withOfficeInputChecks } from "#domain/conversion/office-input.ts";
import type { Readiness } from "#domain/shared/readiness.ts";
import { LAMBDA_CONVERSION_TIMEOUT_MS, OFFICE_INVOKE_TIMEOUT_MS } from "#functions/timeouts.ts";

let shared: LibreOfficeConverter | OfficeWorkerConverter | undefined;

/** officeWorker is the converter that invokes the office function, staging large documents in the uploads bucket. */
function officeWorker(functionName: string): OfficeWorkerConverter {
  const { bucket, s3Endpoint } = config.uploads;
  const client = new LambdaClient({ region: config.region, maxAttempts: 2 });
  return createOfficeWorkerConverter({
    invoke: lambdaOfficeInvoke({ client, functionName, timeoutMs: LAMBDA_CONVERSION_TIMEOUT_MS }),
    ...(bucket ? { transfer: createS3OfficeTransfer({ client: s3ClientFor({ region: config.region, endpoint: s3Endpoint }), bucket }) } : {}),
    timeoutMs: LAMBDA_CONVERSION_TIMEOUT_MS,
    invokeTimeoutMs: OFFICE_INVOKE_TIMEOUT_MS,
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
  };
}

/**
 * converter is the process-wide converter (sign, annotate and convert share it), created on first
 * use: LibreOffice here, or the office function when SIGNET_OFFICE_FUNCTION names one. Creating it
 * starts nothing; the first conversion or warm() does. When the process exits, every LibreOffice
 * it started is killed (a process hook installed here, once).
 */
export function converter(): LibreOfficeConverter | OfficeWorkerConverter {
  if (shared) return shared;
  const { conversion, documentLimits, limits } = config;
  const inProcess = conversion.officeFunction ? undefined : createLibreOfficeConverter(libreOfficeOptions(conversion));
  const office = withOfficeInputChecks<LibreOfficeConverter | OfficeWorkerConverter>(
    inProcess ?? officeWorker(conversion.officeFunction!),
    {
      maxEntries: documentLimits.maxEntries,
      maxUncompressedBytes: documentLimits.maxUncompressedBytes,
      maxImagePixels: limits.maxImagePixels,
      maxSvgBytes: limits.maxImageBytes,
    },
    // What was taken out, never the document: part names and reference kinds (the targets may be private).
    (removed) => logger.info("external references removed before conversion", { count: removed.length }),
  );
  if (inProcess) process.on("exit", () => inProcess.stopNow());
  shared = office;
  return office;
}

/** libreOfficeReady says whether the configured soffice (SIGNET_SOFFICE, else PATH, /opt/...) can run here; starts nothing. */
export function libreOfficeReady(): Promise<Readiness> {
  return libreOfficeReadiness(config.conversion.soffice);
}
