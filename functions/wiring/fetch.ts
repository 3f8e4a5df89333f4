/**
 * Wiring of fetching by URL (documents and images named by URL in sign, annotate, annotate-fields,
 * timestamp and verify; revocation data for B-LT/B-LTA): the two fetchers of this container, with
 * the settings of config.fetch (SIGNET_ALLOW_HTTP, SIGNET_FETCH_TIMEOUT_MS).
 */
import { config } from "#config";
import { createRevocationFetcher } from "#adapters/revocation-fetcher.ts";
import { createSafeFetcher } from "#adapters/safe-fetcher.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";

let documents: Fetcher | undefined;
let revocations: Fetcher | undefined;

/** safeFetcher is this container's fetcher of documents and images by URL, created on first use. */
export function safeFetcher(): Fetcher {
  documents ??= createSafeFetcher(config.fetch);
  return documents;
}

/** revocationFetcher is this container's fetcher of OCSP responses and CRLs (plain http allowed), created on first use. */
export function revocationFetcher(): Fetcher {
  revocations ??= createRevocationFetcher(config.fetch);
  return revocations;
}
