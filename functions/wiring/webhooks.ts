/**
 * Wiring of signed webhooks (issue 38): the webhook store on the key table, the SSRF-safe sender,
 * the back-off and time limit from config.webhooks. Functions of a Config, so a container (or a
 * test) builds its own.
 */
import type { Config } from "#config";
import { createWebhookStore } from "#adapters/dynamodb-webhook-store.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { createSafeWebhookSender } from "#adapters/safe-fetcher.ts";
import { WebhookDeliveries } from "#domain/webhooks/webhook-deliveries.ts";
import type { SecretDeps } from "#domain/webhooks/webhook-secrets.ts";
import type { WebhookSender } from "#domain/webhooks/webhook-sender.ts";
import type { Container } from "#wiring/container.ts";
import { keyStoreOptions } from "#wiring/keys.ts";

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
  const store = createWebhookStore(keyStoreOptions(config));
  const { timeoutMs, retrySchedule } = config.webhooks;
  return new WebhookDeliveries({
    secrets: store,
    deliveries: store,
    sender: overrides.sender ?? createSafeWebhookSender({ timeoutMs }),
    now: overrides.now ?? Date.now,
    schedule: retrySchedule,
    // Above the sender's own limit, so a live attempt is never made twice; a dead one is retried after it.
    leaseMs: 2 * timeoutMs + 30_000,
    warn: (message, data) => logger.warn(message, data ?? {}),
  });
}

/** webhookSecretDeps are the secret routes' store and clock for a config. */
export function webhookSecretDeps(config: Config): SecretDeps {
  return { store: createWebhookStore(keyStoreOptions(config)), now: Date.now };
}

/** webhookSender is a container's webhook sender: the safe fetcher's (HTTPS, public addresses only, SIGNET_WEBHOOK_TIMEOUT_MS). */
function webhookSender(container: Container): WebhookSender {
  return container.part("webhookSender", (own) => createSafeWebhookSender({ timeoutMs: own.config.webhooks.timeoutMs }));
}

/** webhookEvents is a container's webhook deliveries (the job worker's JobEvents, the sweeper's work), made on first use. */
export function webhookEvents(container: Container): WebhookDeliveries {
  return container.part("webhookEvents", (own) => createWebhookEvents(own.config, { sender: webhookSender(own) }));
}
