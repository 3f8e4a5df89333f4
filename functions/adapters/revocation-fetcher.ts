import { createSafeFetcher, type SafeFetcherOptions } from "#adapters/safe-fetcher.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";

/**
 * createRevocationFetcher fetches OCSP responses and CRLs for B-LT/B-LTA: the safe fetcher's address
 * policy, time and size limits, with plain http allowed, since revocation data is signed by its
 * issuer and is published over http almost everywhere (RFC 5280 4.2.1.13, RFC 6960 A.1).
 */
export function createRevocationFetcher(options: Omit<SafeFetcherOptions, "allowHttp">): Fetcher {
  return createSafeFetcher({ ...options, allowHttp: true });
}
