import { expect } from "vitest";
import { type ErrorCode, isSignetError, type SignetError } from "#domain/shared/errors.ts";

/**
 * expectSignetError awaits a promise that must reject with a SignetError of `code` and returns
 * the error, for the checks of its message, details or cause that follow. Anything else (a
 * resolved promise, another error) fails the test with what happened instead.
 */
export async function expectSignetError(promise: Promise<unknown>, code: ErrorCode): Promise<SignetError> {
  const outcome = await promise.then(
    (value: unknown) => ({ resolved: value }),
    (error: unknown) => ({ rejected: error }),
  );
  if ("resolved" in outcome) expect.fail(`expected a SignetError ${code}, but the promise resolved`);
  const error = outcome.rejected;
  if (!isSignetError(error)) throw error;
  expect(error.code, error.message).toBe(code);
  return error;
}
