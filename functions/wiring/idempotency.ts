/**
 * Wiring of idempotency keys (the Idempotency-Key header of sign, timestamp, annotate,
 * annotate-fields and convert): records in the key table, large answers in the uploads bucket's
 * idempotency/ folder, the system clock.
 */
import type { Config } from "#config";
import { createIdempotencyStore } from "#adapters/dynamodb-idempotency-store.ts";
import { s3ClientFor } from "#adapters/s3-upload-store.ts";
import type { IdempotencyStore } from "#domain/shared/idempotency.ts";
import type { IdempotencyDeps } from "#http/idempotency.ts";
import type { Container } from "#wiring/container.ts";
import { keyStoreOptions } from "#wiring/keys.ts";

/**
 * createIdempotencyStoreFor is a container's idempotency store. Locally without a key store
 * endpoint (a handler called straight from a test, no stand-ins) there is no table: undefined, and
 * a request with the header is refused 503 rather than run unguarded.
 */
function createIdempotencyStoreFor(config: Config): IdempotencyStore | undefined {
  if (config.runtime === "local" && !config.keys.dynamodbEndpoint) return undefined;
  return createIdempotencyStore({
    table: keyStoreOptions(config),
    s3: s3ClientFor({ region: config.region, credentials: config.credentials, endpoint: config.uploads.s3Endpoint }),
    bucket: config.uploads.bucket,
  });
}

/** idempotencyDeps are the container's idempotency store and the clock. */
export function idempotencyDeps(container: Container): IdempotencyDeps {
  return { store: container.part("idempotencyStore", (own) => createIdempotencyStoreFor(own.config)), now: Date.now };
}
