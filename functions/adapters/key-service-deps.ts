/**
 * Wiring of the API-key functions (auth-register, auth-verify, authorizer): the real store,
 * mailer, clock, limits and logger, and the time budget each function needs.
 */
import { config } from "#config";
import { DYNAMODB_CALL_BUDGET_MS, TOUCH_BUDGET_MS, defaultKeyStore } from "#adapters/dynamodb-key-store.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { SES_SEND_BUDGET_MS, defaultMailer } from "#adapters/sesv2-mailer.ts";
import type { KeyServiceDeps } from "#domain/keys/key-service.ts";
import { REGISTER_PER_ADDRESS } from "#domain/keys/rate-limit.ts";

/** keyServiceDeps is this container's DynamoDB store, SES mailer, system clock, limits from config and logger. */
export function keyServiceDeps(): KeyServiceDeps {
  return {
    store: defaultKeyStore(),
    mailer: defaultMailer(),
    now: Date.now,
    limits: { perAddress: REGISTER_PER_ADDRESS, perAddressDaily: config.keys.registerPerAddressDaily, perIp: config.keys.registerPerIp },
    registerPolicy: config.keys.registerPolicy,
    warn: (message, data) => logger.warn(message, data),
  };
}

/** QUICK_CALLS_MS allows for the store calls that answer normally (milliseconds each) on a path. */
const QUICK_CALLS_MS = 1_000;

/**
 * KEY_FUNCTION_WORST_CASE_MS is the longest each function can run when one dependency fails as
 * slowly as its client allows (every SDK call is cut at its budget):
 * - auth-register: SES gives up (8 s), then the code and the rate slots are put back, which must
 *   finish even if DynamoDB is slow too (6 s), plus the quick calls: 15 s.
 * - auth-verify: the key is stored, then the notice e-mail gives up (8 s) before the key is
 *   shown, plus the quick calls: 9 s. (DynamoDB failing ends it sooner: 6 s + quick calls.)
 * - authorizer: the key lookup gives up (6 s), or succeeds and the best-effort lastUsedAt update
 *   is cut at 1 s: 7 s.
 * Each function's time-out must be above its figure, or a slow dependency kills it before it
 * answers and cleans up. KEY_FUNCTION_TIMEOUT_SECONDS are those time-outs, with a second to spare.
 */
export const KEY_FUNCTION_WORST_CASE_MS = {
  "auth-register": SES_SEND_BUDGET_MS + DYNAMODB_CALL_BUDGET_MS + QUICK_CALLS_MS,
  "auth-verify": Math.max(SES_SEND_BUDGET_MS, DYNAMODB_CALL_BUDGET_MS) + QUICK_CALLS_MS,
  authorizer: DYNAMODB_CALL_BUDGET_MS + TOUCH_BUDGET_MS,
} as const;

/** KEY_FUNCTION_TIMEOUT_SECONDS are the Lambda time-outs the key functions need (worst case + 1 s). */
export const KEY_FUNCTION_TIMEOUT_SECONDS = Object.fromEntries(
  Object.entries(KEY_FUNCTION_WORST_CASE_MS).map(([name, ms]) => [name, Math.ceil(ms / 1000) + 1]),
) as Record<keyof typeof KEY_FUNCTION_WORST_CASE_MS, number>;
