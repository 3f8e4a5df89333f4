/**
 * Wiring of conversion (sign's DOCX input, annotate with to=pdf, convert): the one LibreOffice
 * converter of this process, configured from config.conversion.
 */
import { config } from "#config";
import { createLibreOfficeConverter, type LibreOfficeConverter } from "#adapters/libreoffice/converter.ts";

let shared: LibreOfficeConverter | undefined;

/**
 * converter is the process-wide LibreOffice converter (sign, annotate and convert share it),
 * created on first use. Creating it starts nothing; the first conversion or warm() does.
 */
export function converter(): LibreOfficeConverter {
  const { conversion } = config;
  shared ??= createLibreOfficeConverter({
    ...(conversion.soffice ? { soffice: conversion.soffice } : {}),
    timeoutMs: conversion.timeoutMs,
    concurrency: conversion.concurrency,
    queueLength: conversion.queueLength,
    mode: conversion.mode,
    ...(conversion.profileTemplate ? { profileTemplate: conversion.profileTemplate } : {}),
  });
  return shared;
}
