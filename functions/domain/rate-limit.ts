/** RateLimit allows `limit` events per sliding window of `windowSeconds`. */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

/** REGISTER_PER_ADDRESS is SPEC 6's limit of codes per address: 3 per 15 minutes. */
export const REGISTER_PER_ADDRESS: RateLimit = { limit: 3, windowSeconds: 15 * 60 };

/** SlotPlan says which slots may take a new event now, or how long until one frees up. */
export type SlotPlan = { allowed: true; freeSlots: number[] } | { allowed: false; retryAfterSeconds: number };

/**
 * planSlots implements an exact sliding window with `limit` slots, each holding the time of the
 * event that last took it: a slot is free when empty or when its event left the window. Taking a
 * slot is one conditional write, so concurrent callers can never both take the same one.
 * `used` maps slot number to the epoch-ms time stored in it.
 */
export function planSlots(used: ReadonlyMap<number, number>, rule: RateLimit, now: number): SlotPlan {
  const windowMs = rule.windowSeconds * 1000;
  const freeSlots: number[] = [];
  let oldest = Number.POSITIVE_INFINITY;
  for (let slot = 0; slot < rule.limit; slot++) {
    const at = used.get(slot);
    if (at === undefined || at + windowMs <= now) freeSlots.push(slot);
    else oldest = Math.min(oldest, at);
  }
  if (freeSlots.length > 0) return { allowed: true, freeSlots };
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) };
}
