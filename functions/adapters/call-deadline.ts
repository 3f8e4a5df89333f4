/**
 * withDeadline runs one SDK call with a hard time limit. The SDK's own time-outs bound each
 * attempt, but its back-off between attempts can grow (throttling, Retry-After hints); this
 * bounds the whole call, so a caller can add budgets up. On expiry the call is aborted and the
 * promise rejects with an error named TimeoutError (no HTTP status: the adapters map it to 503).
 */
export async function withDeadline<T>(budgetMs: number, send: (abortSignal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`no answer within ${budgetMs} ms`);
      error.name = "TimeoutError";
      controller.abort(error);
      reject(error);
    }, budgetMs);
  });
  try {
    return await Promise.race([send(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}
