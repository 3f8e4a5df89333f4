import type { PdfToolDependencies } from "#domain/pdf-tools/protect.ts";
import type { Container } from "#wiring/container.ts";
import { safeFetcher } from "#wiring/fetch.ts";

/** passwordToolDependencies are protect's and unprotect's: the safe fetcher for document URLs and the document limits. */
export function passwordToolDependencies(container: Container): PdfToolDependencies {
  return { fetcher: safeFetcher(container), limits: container.config.documentLimits };
}
