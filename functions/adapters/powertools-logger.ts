import { Logger } from "@aws-lambda-powertools/logger";
import type { LogLevel } from "@aws-lambda-powertools/logger/types";

/**
 * SignetLogger is Powertools' logger whose level a container can set for the rest of the process:
 * Powertools goes back to its constructor's level at the start of every invocation (its sampling
 * refresh), so a plain setLogLevel would last one request.
 */
class SignetLogger extends Logger {
  #level: LogLevel | undefined;

  /** useLevel sets the level from now on, kept across invocations (createContainer calls it with SIGNET_LOG_LEVEL). */
  useLevel(level: LogLevel): void {
    this.#level = level;
    this.setLogLevel(level);
  }

  override refreshSampleRateCalculation(): void {
    super.refreshSampleRateCalculation();
    if (this.#level !== undefined) this.setLogLevel(this.#level);
  }
}

/**
 * logger is the one structured JSON logger of the process. Callers log ids, sizes and outcomes,
 * never document bytes, API keys or e-mail codes: nothing here filters them, so don't pass them.
 * Its level until a container is made is SIGNET_LOG_LEVEL's (a start-up failure before any config
 * is read is logged too); from then on the container's setting (`useLogLevel`).
 */
export const logger = new SignetLogger({
  serviceName: "signet",
  logLevel: (process.env.SIGNET_LOG_LEVEL ?? (process.env.VITEST ? "WARN" : "INFO")) as "INFO",
});

/** useLogLevel sets the process's log level from a configuration (the last container made decides). */
export function useLogLevel(level: LogLevel): void {
  logger.useLevel(level);
}
