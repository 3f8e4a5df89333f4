import { ensureKeyTable } from "#adapters/dynamodb-key-store.ts";
import { IsolationUnavailableError } from "#adapters/libreoffice/errors.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { StartupError } from "#local/startup-errors.ts";
import type { Container } from "#wiring/container.ts";
import { keyStoreOptions } from "#wiring/keys.ts";
import { converter } from "#wiring/conversion.ts";
import { signing } from "#wiring/signing.ts";
import { WebhookSweeper } from "#local/webhook-sweeper.ts";
import { webhookEvents } from "#wiring/webhooks.ts";

/** Shutdown releases what a bootstrap step started. */
export type Shutdown = () => Promise<void>;

/**
 * bootstrap prepares the local installation before the server answers (tables, a warm converter)
 * of a container and returns what must be stopped on exit. Runs after the stand-ins are up and
 * their endpoints are in the container's config. The signing identity comes after the server
 * listens (prepareIdentity).
 */
export async function bootstrap(container: Container): Promise<Shutdown[]> {
  const shutdowns: Shutdown[] = [];
  // API keys: the key table in dynalite (on AWS the stack creates it).
  await ensureKeyTable(keyStoreOptions(container.config));
  // Conversion: start the warm LibreOffice instances now so the first request does not pay ~2 s.
  // local/main.ts refuses to start when LibreOffice is missing; a warm-up that fails anyway (a
  // crash) only warns: conversions then take the one-shot path or answer 503 with a hint.
  // SIGNET_LIBREOFFICE_ISOLATION=required without a working sandbox is no such case: the server does not start.
  const office = converter(container);
  await office.warm().catch((error: unknown) => {
    if (error instanceof Error && error.cause instanceof IsolationUnavailableError) throw new StartupError(error.cause.message);
    logger.warn("LibreOffice is not ready; conversions will fail", { error: error as Error });
  });
  shutdowns.push(() => office.close());
  shutdowns.push(startWebhookSweeper(container));
  return shutdowns;
}

/** startWebhookSweeper starts the in-process timer of webhook retries (pending deliveries resume from the key table) and says so. */
function startWebhookSweeper(container: Container): Shutdown {
  const { sweepMs, retrySchedule } = container.config.webhooks;
  const events = webhookEvents(container);
  const sweeper = new WebhookSweeper(events, { intervalMs: sweepMs, warn: (message, data) => logger.warn(message, data) });
  // A finished job's first attempt: at once, by the sweeper (not inside the job worker).
  events.onQueued(() => sweeper.wake());
  sweeper.start();
  const hours = retrySchedule.reduce((sum, delay) => sum + delay, 0) / 3_600_000;
  logger.info("webhook sweeper ready", { everyMs: sweepMs, attempts: retrySchedule.length + 1, overHours: Math.round(hours * 10) / 10 });
  return () => sweeper.stop();
}

/**
 * prepareIdentity loads the signing identity from the data folder, generating it on the very first
 * start. Called once the server listens: a new identity's certificate names the server's own CRL
 * URL (GET /v1/verify/crl), and the port may only be known then (PORT=0). A request arriving
 * meanwhile waits for the same load. An identity that cannot be used (a certificate that does not
 * certify the KMS key, an unreadable file) stops the start, with the reason and where.
 */
export async function prepareIdentity(container: Container): Promise<void> {
  const identity = await signing(container)
    .identityStore()
    .load()
    .catch((error: unknown) => {
      if (!(error instanceof SignetError)) throw error;
      const where = error.cause instanceof Error ? ` (${error.cause.message})` : "";
      throw new StartupError(`${error.message}${where}`);
    });
  logger.info("signing identity ready", { subject: identity.certificate.subject, fingerprint: identity.certificate.fingerprint256 });
}
