import { ensureKeyTable, keyStoreOptions } from "#adapters/dynamodb-key-store.ts";

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
  return shutdowns;
}
