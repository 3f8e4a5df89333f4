/**
 * Wiring of fetching by URL (documents and images named by URL in sign, annotate, annotate-fields,
 * timestamp and verify; revocation data for B-LT/B-LTA): the two fetchers of a container, with
 * the settings of config.fetch (SIGNET_ALLOW_HTTP, SIGNET_FETCH_TIMEOUT_MS).
 */
import { createRevocationFetcher } from "#adapters/revocation-fetcher.ts";
import { createSafeFetcher } from "#adapters/safe-fetcher.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import type { Container } from "#wiring/container.ts";

/** safeFetcher is a container's fetcher of documents and images by URL, made on first use. */
export function safeFetcher(container: Container): Fetcher {
  return container.part("safeFetcher", (own) => createSafeFetcher(own.config.fetch));
}

/** revocationFetcher is a container's fetcher of OCSP responses and CRLs (plain http allowed), made on first use. */
export function revocationFetcher(container: Container): Fetcher {
  return container.part("revocationFetcher", (own) => createRevocationFetcher(own.config.fetch));
}
