import ipaddr from "ipaddr.js";

/** RateLimit allows `limit` events per sliding window of `windowSeconds`. */
export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

/** REGISTER_PER_ADDRESS is the documented limit of codes per address: 3 per 15 minutes. */
export const REGISTER_PER_ADDRESS: RateLimit = { limit: 3, windowSeconds: 15 * 60 };

/**
 * VERIFY_FAILURES_PER_SOURCE is how many codes that did not work one source network (an IPv4
 * address, an IPv6 /64) may try per 15 minutes, over all addresses (SIGNET_VERIFY_IP_FAILURE_LIMIT
 * sets the limit): it bounds guessing across many addresses from one place.
 */
export const VERIFY_FAILURES_PER_SOURCE: RateLimit = { limit: 10, windowSeconds: 15 * 60 };

/**
 * REGISTER_DAILY_WINDOW_SECONDS is the window of the second per-address rule (its limit is
 * configurable, default 10): it caps slow code guessing at limit x 5 tries per address per day.
 */
export const REGISTER_DAILY_WINDOW_SECONDS = 24 * 60 * 60;

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

/** RulePlan is the verdict on several rules at once: all allow, or the one that makes the caller wait longest. */
export type RulePlan = { allowed: true; plans: Array<{ allowed: true; freeSlots: number[] }> } | { allowed: false; rule: number; retryAfterSeconds: number };

/**
 * planRules plans each rule on its own slots. An event needs a slot under every rule, so when any
 * rule refuses, the caller must wait until the last of the refusing rules frees a slot: the
 * answer names the refusing rule with the longest wait (the first such on a tie).
 */
export function planRules(rules: ReadonlyArray<{ used: ReadonlyMap<number, number>; rule: RateLimit }>, now: number): RulePlan {
  const plans: Array<{ allowed: true; freeSlots: number[] }> = [];
  let refusal: { allowed: false; rule: number; retryAfterSeconds: number } | undefined;
  rules.forEach(({ used, rule }, index) => {
    const plan = planSlots(used, rule, now);
    if (plan.allowed) plans.push(plan);
    else if (!refusal || plan.retryAfterSeconds > refusal.retryAfterSeconds)
      refusal = { allowed: false, rule: index, retryAfterSeconds: plan.retryAfterSeconds };
  });
  return refusal ?? { allowed: true, plans };
}

/** describeWindow words a window for messages: "15 minutes", "24 hours", "1 hour", "90 seconds". */
export function describeWindow(windowSeconds: number): string {
  const [count, unit] =
    windowSeconds % 3600 === 0 ? [windowSeconds / 3600, "hour"] : windowSeconds % 60 === 0 ? [windowSeconds / 60, "minute"] : [windowSeconds, "second"];
  return `${count} ${unit}${count === 1 ? "" : "s"}`;
}

/**
 * ipBucketOf is the rate-limit bucket of a source address. An IPv6 client usually holds a whole
 * /64 and can rotate through it, so IPv6 addresses count per /64 network; an IPv4-mapped IPv6
 * address (::ffff:198.51.100.7) counts as its IPv4 address. Anything unparseable counts as given.
 */
export function ipBucketOf(sourceIp: string): string {
  const text = sourceIp.trim();
  if (!ipaddr.isValid(text)) return text === "" ? "unknown" : text;
  const address = ipaddr.process(text);
  if (address.kind() === "ipv4") return address.toString();
  const network = (address as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${network.join(":")}::/64`;
}

/** KEY_RATE_WINDOW_SECONDS is the window of the per-key request limit: one minute. */
export const KEY_RATE_WINDOW_SECONDS = 60;

/** FixedWindow is the counting window a moment falls in, and the seconds until it ends. */
export interface FixedWindow {
  /** Epoch ms of the window's start (its identity in the store). */
  start: number;
  /** Epoch ms of its end. */
  end: number;
  /** Whole seconds from now until the end (at least 1): the Retry-After of a refusal. */
  resetsInSeconds: number;
}

/**
 * fixedWindowOf places a moment in aligned windows of `windowSeconds` (12:00:00-12:00:59, ...).
 * The per-key limit counts requests per window with one conditional increment per request (no
 * read, no list of slots): exact across containers, at most 2 x limit in a minute that
 * straddles two windows.
 */
export function fixedWindowOf(now: number, windowSeconds: number): FixedWindow {
  const size = windowSeconds * 1000;
  const start = Math.floor(now / size) * size;
  const end = start + size;
  return { start, end, resetsInSeconds: Math.max(1, Math.ceil((end - now) / 1000)) };
}
