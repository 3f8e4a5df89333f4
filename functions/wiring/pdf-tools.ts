/**
 * Wiring of the PDF tools (POST /v1/merge, /v1/split, /v1/pages): the fetcher and converter sign
 * uses for its inputs, the document limits and the tools' own limits from config.
 */
import type { PdfToolLimits } from "#domain/pdf-tools/tool-limits.ts";
import type { ToolDependencies } from "#domain/pdf-tools/source.ts";
import type { Container } from "#wiring/container.ts";
import { converter, intakeLimits } from "#wiring/conversion.ts";
import { safeFetcher } from "#wiring/fetch.ts";

/** pdfToolDependencies are what the PDF tools read their inputs with, and their limits. */
export function pdfToolDependencies(container: Container): ToolDependencies & { tools: PdfToolLimits } {
  const { config } = container;
  const { limits } = config;
  return {
    fetcher: safeFetcher(container),
    converter: converter(container),
    limits: { ...intakeLimits(config), maxPdfPages: limits.maxPdfPages },
    tools: {
      maxMergeInputs: limits.maxMergeInputs,
      maxMergeTotalBytes: limits.maxMergeTotalBytes,
      maxSplitParts: limits.maxSplitParts,
      maxPdfPages: limits.maxPdfPages,
    },
  };
}
