/**
 * Wiring of conversion (sign's DOCX input, annotate with to=pdf, convert): the one LibreOffice
 * converter of this process, configured from config.conversion, behind the input checks every
 * document passes before LibreOffice sees it (external references removed, image sizes capped).
 */
import { config } from "#config";
import { createLibreOfficeConverter, type LibreOfficeConverter } from "#adapters/libreoffice/converter.ts";
import { libreOfficeReadiness } from "#adapters/libreoffice/readiness.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { withOfficeInputChecks } from "#domain/conversion/office-input.ts";
import type { Readiness } from "#domain/shared/readiness.ts";

let shared: LibreOfficeConverter | undefined;

/**
 * converter is the process-wide LibreOffice converter (sign, annotate and convert share it),
 * created on first use. Creating it starts nothing; the first conversion or warm() does. When the
 * process exits, every LibreOffice it started is killed (a process hook installed here, once).
 */
export function converter(): LibreOfficeConverter {
  if (shared) return shared;
  const { conversion, documentLimits, limits } = config;
  const office = withOfficeInputChecks(
    createLibreOfficeConverter({
      ...(conversion.soffice ? { soffice: conversion.soffice } : {}),
      timeoutMs: conversion.timeoutMs,
      concurrency: conversion.concurrency,
      queueLength: conversion.queueLength,
      mode: conversion.mode,
      isolation: conversion.isolation,
      memoryLimitMb: conversion.memoryLimitMb,
      ...(conversion.profileTemplate ? { profileTemplate: conversion.profileTemplate } : {}),
    }),
    { maxEntries: documentLimits.maxEntries, maxUncompressedBytes: documentLimits.maxUncompressedBytes, maxImagePixels: limits.maxImagePixels },
    // What was taken out, never the document: part names and reference kinds (the targets may be private).
    (removed) => logger.info("external references removed before conversion", { count: removed.length }),
  );
  process.on("exit", () => office.stopNow());
  shared = office;
  return office;
}

/** libreOfficeReady says whether the configured soffice (SIGNET_SOFFICE, else PATH, /opt/...) can run here; starts nothing. */
export function libreOfficeReady(): Promise<Readiness> {
  return libreOfficeReadiness(config.conversion.soffice);
}
