import { SignetError } from "#domain/shared/errors.ts";
import type { KeyRateStore } from "#domain/keys/key-store.ts";
import { KEY_RATE_WINDOW_SECONDS, describeWindow, fixedWindowOf } from "#domain/keys/rate-limit.ts";

/** KeyRateDeps is what the per-key request limit needs. */
export interface KeyRateDeps {
  store: KeyRateStore;
  /** The clock, epoch milliseconds. */
  now: () => number;
  /** Requests allowed per key per minute. */
  perMinute: number;
  /** Reports a store failure (the request goes through: see limitKeyRate). */
  warn?: (message: string, data: Record<string, unknown>) => void;
}

/**
 * limitKeyRate counts one request of a key and refuses it with 429 RATE_LIMIT_ERROR (Retry-After:
 * the seconds until the current minute ends) once the key has made `perMinute` requests in this
 * minute. The count lives in the key store, so it holds across every container and function.
 * A store that cannot be reached lets the request through and warns: the key itself was already
 * checked (the authorizer), and an outage of the counter should not stop all signing.
 */
export async function limitKeyRate(deps: KeyRateDeps, keyId: string): Promise<void> {
  const now = deps.now();
  const window = fixedWindowOf(now, KEY_RATE_WINDOW_SECONDS);
  let counted: boolean;
  try {
    counted = await deps.store.countKeyRequest(keyId, window.start, deps.perMinute, window.end + KEY_RATE_WINDOW_SECONDS * 1000);
  } catch (error) {
    deps.warn?.("per-key rate count failed; request allowed", { keyId, error: (error as Error).message });
    return;
  }
  if (!counted) {
    throw new SignetError(
      "RATE_LIMIT_ERROR",
      `This API key made its ${deps.perMinute} requests for this minute (at most ${deps.perMinute} per ${describeWindow(KEY_RATE_WINDOW_SECONDS)} per key). Retry in ${window.resetsInSeconds} seconds.`,
      { retryAfterSeconds: window.resetsInSeconds },
    );
  }
}
