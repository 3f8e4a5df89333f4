import { ensureKeyTable, keyStoreOptions } from "#adapters/dynamodb-key-store.ts";
import { converter } from "#adapters/libreoffice-converter.ts";
import { logger } from "#adapters/powertools-logger.ts";

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
  // Conversion: start the warm LibreOffice instances now so the first request does not pay ~2 s.
  // Without LibreOffice the server still starts; conversions then answer 503 with a hint.
  await converter.warm().catch((error: unknown) => logger.warn("LibreOffice is not ready; conversions will fail", { error: error as Error }));
  shutdowns.push(() => converter.close());
  return shutdowns;
}
