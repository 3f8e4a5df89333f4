/** Shutdown releases what a bootstrap step started. */
export type Shutdown = () => Promise<void>;

/**
 * bootstrap prepares the local installation before the server answers (tables, signing identity,
 * a warm converter) and returns what must be stopped on exit. Runs after the stand-ins are up and
 * their endpoints are in process.env.
 */
export async function bootstrap(): Promise<Shutdown[]> {
  const shutdowns: Shutdown[] = [];
  return shutdowns;
}
