/**
 * Wiring of the API keys feature (auth-register, auth-verify, the authorizer, keys-list,
 * keys-revoke, keys-revoke-link and the per-key request limit of every authorised route): a
 * container's DynamoDB key store and SES mailer, the clock, the limits from config and the logger.
 */
import type { Config } from "#config";
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
import type { Container } from "#wiring/container.ts";

/** keyStoreOptions are the options of a container's key table, from config. */
export function keyStoreOptions(config: Pick<Config, "keys" | "region" | "credentials">): DynamoKeyStoreOptions {
  return {
    tableName: config.keys.tableName,
    region: config.region,
    ...(config.keys.dynamodbEndpoint ? { endpoint: config.keys.dynamodbEndpoint } : {}),
    ...(config.credentials ? { credentials: config.credentials } : {}),
  };
}

/** keyStore is a container's key store, made on first use. */
function keyStore(container: Container): KeyStore {
  return container.part("keyStore", (own) => createDynamoKeyStore(keyStoreOptions(own.config)));
}

/** sesMailer is a container's SES mailer, made on first use. */
function sesMailer(container: Container): Mailer {
  return container.part("mailer", (own) => createMailer(own.config));
}

/** createMailer is the SES mailer of a config. */
function createMailer(config: Config): Mailer {
  const { sender, sesEndpoint, configurationSet } = config.mail;
  return createSesMailer({
    sender,
    region: config.region,
    ...(sesEndpoint ? { endpoint: sesEndpoint } : {}),
    ...(config.credentials ? { credentials: config.credentials } : {}),
    ...(configurationSet ? { configurationSet } : {}),
  });
}

const warn: KeyServiceDeps["warn"] = (message, data) => logger.warn(message, data);

/** keyServiceDeps are a container's key store, mailer, the system clock, limits from config and logger (register, verify-code). */
export function keyServiceDeps(container: Container): KeyServiceDeps & VerifyDeps {
  const { keys } = container.config;
  return {
    store: keyStore(container),
    mailer: sesMailer(container),
    now: Date.now,
    limits: { perAddress: REGISTER_PER_ADDRESS, perAddressDaily: keys.registerPerAddressDaily, perIp: keys.registerPerIp },
    registerPolicy: keys.registerPolicy,
    decoyRecipient: SES_MAILBOX_SIMULATOR,
    failuresPerSource: keys.verifyFailuresPerIp,
    warn,
  };
}

/** keyManagementDeps are the key store and clock of listing and revoking keys. */
export function keyManagementDeps(container: Container): KeyManagementDeps {
  return { store: keyStore(container), now: Date.now };
}

/** authorizerDeps are the authorizer's: the key store, the clock and the logger. */
export function authorizerDeps(container: Container): Pick<KeyServiceDeps, "store" | "now" | "warn"> {
  return { store: keyStore(container), now: Date.now, warn };
}

/**
 * keyRateGuard is the per-key request limit as the chain applies it on authorised routes: counted
 * in the key table (DynamoDB on AWS, the dynalite stand-in locally), SIGNET_KEY_RATE_LIMIT per key
 * per minute. Locally without a key store endpoint (a handler called straight from a test, no
 * stand-ins) there is no table to count in, and no limit.
 */
export function keyRateGuard(container: Container): KeyRateGuard | undefined {
  const { config } = container;
  if (config.runtime === "local" && !config.keys.dynamodbEndpoint) return undefined;
  return (keyId) => limitKeyRate({ store: keyStore(container), now: Date.now, perMinute: config.keys.ratePerMinute, warn }, keyId);
}
