import { ensureKeyTable, keyStoreOptions } from "#adapters/dynamodb-key-store.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { converter } from "#wiring/conversion.ts";
import { identityStore } from "#wiring/signing.ts";

/** Shutdown releases what a bootstrap step started. */
export type Shutdown = () => Promise<void>;

/**
 * bootstrap prepares the local installation before the server answers (tables, signing identity,
 * a warm converter) and returns what must be stopped on exit. Runs after the stand-ins are up and
 * their endpoints are in process.env.
 */
export async function bootstrap(): Promise<Shutdown[]> {
  const shutdowns: Shutdown[] = [];
  // API keys: the key table in dynalite (on AWS the stack creates it).
  await ensureKeyTable(keyStoreOptions());
  // Signing: load the identity from the data folder, generating it on the very first start.
  const identity = await identityStore().load();
  logger.info("signing identity ready", { subject: identity.certificate.subject, fingerprint: identity.certificate.fingerprint256 });
  // Conversion: start the warm LibreOffice instances now so the first request does not pay ~2 s.
  // local/main.ts refuses to start when LibreOffice is missing; a warm-up that fails anyway (a
  // crash) only warns: conversions then take the one-shot path or answer 503 with a hint.
  await converter()
    .warm()
    .catch((error: unknown) => logger.warn("LibreOffice is not ready; conversions will fail", { error: error as Error }));
  shutdowns.push(() => converter().close());
  return shutdowns;
}
