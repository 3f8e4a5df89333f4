/**
 * The per-key request limit as the pipeline applies it on authorised routes: counted in the key
 * table (DynamoDB on AWS, the dynalite stand-in locally), SIGNET_KEY_RATE_LIMIT per key per minute.
 */
import { config } from "#config";
import { defaultKeyStore } from "#adapters/dynamodb-key-store.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { limitKeyRate } from "#domain/keys/key-rate.ts";

/** KeyRateGuard counts one request of a key, or throws RATE_LIMIT_ERROR. */
export type KeyRateGuard = (keyId: string) => Promise<void>;

/**
 * defaultKeyRateGuard is this container's guard. Locally without a key store endpoint (a handler
 * called straight from a test, no stand-ins) there is no table to count in, and no limit.
 */
export function defaultKeyRateGuard(): KeyRateGuard | undefined {
  if (config.runtime === "local" && !config.keys.dynamodbEndpoint) return undefined;
  return (keyId) =>
    limitKeyRate({ store: defaultKeyStore(), now: Date.now, perMinute: config.keys.ratePerMinute, warn: (message, data) => logger.warn(message, data) }, keyId);
}
