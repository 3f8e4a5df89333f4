import { SignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";

/** OwnCrl is this server's CRL: where it is served, and how to sign a fresh one. */
export interface OwnCrl {
  /** The URL the server answers with its CRL; undefined while it is not listening. */
  url: () => string | undefined;
  crl: () => Promise<Buffer>;
}

const loopbackHosts = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * createOwnCrlFetcher puts the local server's own CRL in front of the revocation fetcher: exactly
 * the URL `own.url()` is answered in-process (a freshly signed CRL, no network hop), so the safe
 * fetcher's loopback ban stays whole. A Signet CRL URL on loopback that is not this server's (a
 * local identity generated while the server listened on another port) fails loudly naming both
 * URLs; every other URL goes to `inner` unchanged.
 */
export function createOwnCrlFetcher(inner: Fetcher, own: OwnCrl): Fetcher {
  return {
    async fetch(url, options) {
      const ownUrl = own.url();
      if (ownUrl !== undefined && url === ownUrl) {
        try {
          return { bytes: await own.crl(), contentType: "application/pkix-crl" };
        } catch (error) {
          // No CRL here (the root key is gone): the level cannot be reached, which is not a missing route.
          if (error instanceof SignetError && error.code === "NOT_FOUND") {
            throw new SignetError("LEVEL_UNAVAILABLE", `B-LT needs the CRL at ${url}, and this server cannot issue it: ${error.message}`, { cause: error });
          }
          throw error;
        }
      }
      let parsed: URL | undefined;
      try {
        parsed = new URL(url);
      } catch {
        parsed = undefined;
      }
      if (parsed && loopbackHosts.has(parsed.hostname) && parsed.pathname === "/v1/verify/crl") {
        throw new SignetError(
          "FETCH_FAILED",
          `The signing certificate's CRL distribution point ${url} is not this server's CRL (${ownUrl ?? "the server is not listening yet"}): the local identity was generated while the server listened on another port. Start the server on that port again (PORT), or move the identity folder of the data folder aside and restart the server to generate a new identity.`,
          { details: [{ field: "level", issue: `the CRL at ${url} is not served by this server` }] },
        );
      }
      return inner.fetch(url, options);
    },
  };
}
