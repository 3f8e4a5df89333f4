import type { AnnotateLimits } from "#domain/docx/annotate.ts";
import { SignetError } from "#domain/shared/errors.ts";
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

/** signetFailure awaits a promise that must reject with a SignetError and returns that error. */
export async function signetFailure(promise: Promise<unknown>): Promise<SignetError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SignetError) return error;
    throw error;
  }
  throw new Error("expected a SignetError");
}
