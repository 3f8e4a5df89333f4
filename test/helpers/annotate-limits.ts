import type { AnnotateLimits } from "#domain/docx/annotate.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";

/** annotateLimits are the service's default annotate limits, for filling templates in unit tests. */
export const annotateLimits: AnnotateLimits = {
  maxDocxEntries: 5000,
  maxDocxControls: 2000,
  maxDocxXmlNodes: 200_000,
  maxDocxControlNodes: 10_000,
  maxDocxUncompressedBytes: 200 * 1024 * 1024,
  maxImageBytes: 10 * 1024 * 1024,
  maxTotalImageBytes: 50 * 1024 * 1024,
  maxDataIterations: 10_000,
  maxDataOutputChars: 64 * 1024 * 1024,
};

/** noFetch is a fetcher for unit tests that must not reach the network. */
export const noFetch: Fetcher = {
  fetch: async () => {
    throw new Error("no network in unit tests");
  },
};
