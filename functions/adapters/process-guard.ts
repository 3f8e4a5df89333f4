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

const exceptionHandlers = new Set<(error: Error) => void>();

/** uncaughtExceptionListener is the process listener guardUncaughtExceptions installs (exported for tests). */
export function uncaughtExceptionListener(error: Error): void {
  logger.error("uncaught exception (a bug; the process keeps serving)", { error });
  for (const handler of exceptionHandlers) {
    try {
      handler(error);
    } catch {
      // a failing handler must not take the guard down
    }
  }
}

/**
 * guardUncaughtExceptions keeps a long-running server (the local server) up when one request's
 * code throws outside any promise chain: the error is logged, `onError` may answer the request
 * that threw (the local server finds it through AsyncLocalStorage), and the other requests carry
 * on. Lambda's runtime handles these itself (the container is replaced), so only the local server
 * installs this.
 */
export function guardUncaughtExceptions(onError?: (error: Error) => void): void {
  if (onError) exceptionHandlers.add(onError);
  if (exceptionsGuarded) return;
  exceptionsGuarded = true;
  process.on("uncaughtException", uncaughtExceptionListener);
}
