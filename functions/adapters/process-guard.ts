import { logger } from "#adapters/powertools-logger.ts";

let rejectionsGuarded = false;
let exceptionsGuarded = false;

/**
 * guardUnhandledRejections logs a promise rejection nobody awaited instead of letting Node end the
 * process (its default since Node 15). No error of one request may end a container serving others;
 * each one logged here is a bug to fix where the promise was dropped.
 */
export function guardUnhandledRejections(): void {
  if (rejectionsGuarded) return;
  rejectionsGuarded = true;
  process.on("unhandledRejection", (reason) => {
    logger.error("unhandled promise rejection (a bug: the request that caused it was answered or timed out; the process keeps serving)", {
      error: reason instanceof Error ? reason : new Error(String(reason)),
    });
  });
}

/**
 * guardUncaughtExceptions keeps a long-running server (the local server) up when one request's
 * code throws outside any promise chain: the error is logged, the other requests carry on, and the
 * request that threw ends through the server's request time-out. Lambda's runtime handles these
 * itself (the container is replaced), so only the local server installs this.
 */
export function guardUncaughtExceptions(): void {
  if (exceptionsGuarded) return;
  exceptionsGuarded = true;
  process.on("uncaughtException", (error) => {
    logger.error("uncaught exception (a bug; the process keeps serving)", { error });
  });
}
