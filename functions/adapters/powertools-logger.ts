import { Logger } from "@aws-lambda-powertools/logger";

/**
 * logger is the one structured JSON logger of the process. Callers log ids, sizes and outcomes,
 * never document bytes, API keys or e-mail codes: nothing here filters them, so don't pass them.
 */
export const logger = new Logger({
  serviceName: "signet",
  logLevel: (process.env.SIGNET_LOG_LEVEL ?? (process.env.VITEST ? "WARN" : "INFO")) as "INFO",
});
