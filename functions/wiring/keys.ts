/**
 * Wiring of the API keys feature (auth-register, auth-verify, the authorizer, keys-list,
 * keys-revoke, keys-revoke-link and the per-key request limit of every authorised route): the
 * DynamoDB key store, the SES mailer, the clock, the limits from config and the logger.
 */
import { config } from "#config";
import { createDynamoKeyStore, type DynamoKeyStoreOptions } from "#adapters/dynamodb-key-store.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { SES_MAILBOX_SIMULATOR, createSesMailer } from "#adapters/sesv2-mailer.ts";
import { limitKeyRate } from "#domain/keys/key-rate.ts";
import type { KeyManagementDeps } from "#domain/keys/key-management.ts";
import type { KeyStore } from "#domain/keys/key-store.ts";
import type { Mailer } from "#domain/keys/mailer.ts";
import type { KeyServiceDeps, VerifyDeps } from "#domain/keys/key-service.ts";
import { REGISTER_PER_ADDRESS } from "#domain/keys/rate-limit.ts";
import type { KeyRateGuard } from "#http/pipeline.ts";

/** keyStoreOptions are the options of this container's key table, from config. */
export function keyStoreOptions(): DynamoKeyStoreOptions {
  return { tableName: config.keys.tableName, region: config.region, ...(config.keys.dynamodbEndpoint ? { endpoint: config.keys.dynamodbEndpoint } : {}) };
}

let store: KeyStore | undefined;

/** keyStore is this container's key store, created once on first use from config. */
function keyStore(): KeyStore {
  store ??= createDynamoKeyStore(keyStoreOptions());
  return store;
}

let mailer: Mailer | undefined;

/** sesMailer is this container's mailer, created once on first use from config. */
function sesMailer(): Mailer {
  const { sender, sesEndpoint, configurationSet } = config.mail;
  mailer ??= createSesMailer({
    sender,
    region: config.region,
    ...(sesEndpoint ? { endpoint: sesEndpoint } : {}),
    ...(configurationSet ? { configurationSet } : {}),
  });
  return mailer;
}

/** keyServiceDeps is this container's DynamoDB store, SES mailer, system clock, limits from config and logger (register, verify-code). */
export function keyServiceDeps(): KeyServiceDeps & VerifyDeps {
  return {
    store: keyStore(),
    mailer: sesMailer(),
    now: Date.now,
    limits: { perAddress: REGISTER_PER_ADDRESS, perAddressDaily: config.keys.registerPerAddressDaily, perIp: config.keys.registerPerIp },
    registerPolicy: config.keys.registerPolicy,
    decoyRecipient: SES_MAILBOX_SIMULATOR,
    failuresPerSource: config.keys.verifyFailuresPerIp,
    warn: (message, data) => logger.warn(message, data),
  };
}

/** keyManagementDeps are the key store and clock of listing and revoking keys. */
export function keyManagementDeps(): KeyManagementDeps {
  return { store: keyStore(), now: Date.now };
}

/** authorizerDeps are the authorizer's: the key store, the clock and the logger. */
export function authorizerDeps(): Pick<KeyServiceDeps, "store" | "now" | "warn"> {
  return { store: keyStore(), now: Date.now, warn: (message, data) => logger.warn(message, data) };
}

/**
 * keyRateGuard is the per-key request limit as the chain applies it on authorised routes: counted
 * in the key table (DynamoDB on AWS, the dynalite stand-in locally), SIGNET_KEY_RATE_LIMIT per key
 * per minute. Locally without a key store endpoint (a handler called straight from a test, no
 * stand-ins) there is no table to count in, and no limit.
 */
export function keyRateGuard(): KeyRateGuard | undefined {
  if (config.runtime === "local" && !config.keys.dynamodbEndpoint) return undefined;
  return (keyId) =>
    limitKeyRate({ store: keyStore(), now: Date.now, perMinute: config.keys.ratePerMinute, warn: (message, data) => logger.warn(message, data) }, keyId);
}
