/**
 * Wiring of idempotency keys (the Idempotency-Key header of sign, timestamp, annotate,
 * annotate-fields and convert): records in the key table, large answers in the uploads bucket's
 * idempotency/ folder, the system clock.
 */
import { config } from "#config";
import { createIdempotencyStore } from "#adapters/dynamodb-idempotency-store.ts";
import { s3ClientFor } from "#adapters/s3-upload-store.ts";
import type { IdempotencyStore } from "#domain/shared/idempotency.ts";
import type { IdempotencyDeps } from "#http/idempotency.ts";
import { keyStoreOptions } from "#wiring/keys.ts";

let store: IdempotencyStore | undefined;

/**
 * idempotencyDeps are this container's idempotency store, created on first use, and the clock.
 * Locally without a key store endpoint (a handler called straight from a test, no stand-ins)
 * there is no table: a request with the header is refused 503 rather than run unguarded.
 */
export function idempotencyDeps(): IdempotencyDeps {
  if (config.runtime === "local" && !config.keys.dynamodbEndpoint) return { store: undefined, now: Date.now };
  store ??= createIdempotencyStore({
    table: keyStoreOptions(),
    s3: s3ClientFor({ region: config.region, endpoint: config.uploads.s3Endpoint }),
    bucket: config.uploads.bucket,
  });
  return { store, now: Date.now };
}
