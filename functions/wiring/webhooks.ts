/**
 * Wiring of signed webhooks (issue 38): the webhook store on the key table, the SSRF-safe sender,
 * the back-off and time limit from config.webhooks. Functions of a Config, so a container (or a
 * test) builds its own.
 */
import type { Config } from "#config";
import { createWebhookStore } from "#adapters/dynamodb-webhook-store.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { createSafeWebhookSender } from "#adapters/safe-fetcher.ts";
import type { DynamoKeyStoreOptions } from "#adapters/dynamodb-key-store.ts";
import { WebhookDeliveries } from "#domain/webhooks/webhook-deliveries.ts";
import type { SecretDeps } from "#domain/webhooks/webhook-secrets.ts";
import type { WebhookSender } from "#domain/webhooks/webhook-sender.ts";

/** tableOf is the key table's coordinates in a config. */
function tableOf(config: Config): DynamoKeyStoreOptions {
  return { tableName: config.keys.tableName, region: config.region, ...(config.keys.dynamodbEndpoint ? { endpoint: config.keys.dynamodbEndpoint } : {}) };
}

/** WebhookOverrides replace parts a test provides itself: a sender that may reach its receiver on loopback, a clock. */
export interface WebhookOverrides {
  sender?: WebhookSender;
  now?: () => number;
}

/**
 * createWebhookEvents is JobEvents on Standard Webhooks for a config: deliveries and secrets in the
 * key table, sent by the safe fetcher (HTTPS only, public addresses only, SIGNET_WEBHOOK_TIMEOUT_MS).
 */
export function createWebhookEvents(config: Config, overrides: WebhookOverrides = {}): WebhookDeliveries {
  const store = createWebhookStore(tableOf(config));
  const { timeoutMs, retrySchedule } = config.webhooks;
  return new WebhookDeliveries({
    secrets: store,
    deliveries: store,
    sender: overrides.sender ?? createSafeWebhookSender({ timeoutMs, allowHttp: false }),
    now: overrides.now ?? Date.now,
    schedule: retrySchedule,
    // Above the sender's own limit, so a live attempt is never made twice; a dead one is retried after it.
    leaseMs: 2 * timeoutMs + 30_000,
    warn: (message, data) => logger.warn(message, data ?? {}),
  });
}

/** webhookSecretDeps are the secret routes' store and clock for a config. */
export function webhookSecretDeps(config: Config): SecretDeps {
  return { store: createWebhookStore(tableOf(config)), now: Date.now };
}
