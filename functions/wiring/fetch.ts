/**
 * Wiring of fetching by URL (documents and images named by URL in sign, annotate, annotate-fields,
 * timestamp and verify; revocation data for B-LT/B-LTA): the two fetchers of a container, with
 * the settings of config.fetch (SIGNET_ALLOW_HTTP, SIGNET_FETCH_TIMEOUT_MS).
 */
import type { Config } from "#config";
import { createRevocationFetcher } from "#adapters/revocation-fetcher.ts";
import { createSafeFetcher } from "#adapters/safe-fetcher.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";

/** createDocumentFetcher is a container's fetcher of documents and images by URL. */
export function createDocumentFetcher(config: Pick<Config, "fetch">): Fetcher {
  return createSafeFetcher(config.fetch);
}

/** createRevocationDataFetcher is a container's fetcher of OCSP responses and CRLs (plain http allowed). */
export function createRevocationDataFetcher(config: Pick<Config, "fetch">): Fetcher {
  return createRevocationFetcher(config.fetch);
}
