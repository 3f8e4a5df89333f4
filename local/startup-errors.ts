// Why the local server could not start, as one line naming the cause and the setting to change.
import { createServer } from "node:net";

/** StartupError is a start-up failure whose message is the whole explanation (no stack trace). */
export class StartupError extends Error {
  override name = "StartupError";
}

/** portInUse is the StartupError for a port another program holds. */
export function portInUse(what: string, host: string, port: number, variable: string): StartupError {
  return new StartupError(`${what} port ${port} on ${host} is already in use (another Signet or another program): stop it, or set ${variable} to a free port`);
}

/** assertPortFree fails with portInUse when host:port cannot be bound now; port 0 always passes. */
export async function assertPortFree(what: string, host: string, port: number, variable: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") reject(portInUse(what, host, port, variable));
      else if (error.code === "EACCES")
        reject(new StartupError(`${what} port ${port} on ${host} needs privileges this user lacks: set ${variable} to a port above 1023`));
      else reject(error);
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** readPort reads a port setting: an integer 0-65535, or a StartupError naming the variable. */
export function readPort(variable: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[variable];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new StartupError(`${variable} must be a port number from 0 to 65535, got "${raw}"`);
  }
  return port;
}
