/**
 * The back-off of a webhook: a list of delays, the first before the second attempt, and so on;
 * after the last delay's attempt fails the delivery is dead-lettered. The default (functions/config.ts,
 * SIGNET_WEBHOOK_RETRY_SCHEDULE) is 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: 8 attempts over 27.6 hours.
 */

/** nextAttemptAt is when attempt `made + 1` is due after `made` scheduled attempts, the last at `lastAt`; undefined when none is left. */
export function nextAttemptAt(schedule: readonly number[], made: number, lastAt: number): number | undefined {
  const delay = schedule[made - 1];
  return delay === undefined ? undefined : lastAt + delay;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** parseSchedule reads "5s,5m,30m,2h" (units ms, s, m, h, d) into delays in ms; throws naming the bad entry. */
export function parseSchedule(text: string): number[] {
  return text.split(",").map((entry) => {
    const match = /^\s*(\d+)(ms|s|m|h|d)\s*$/.exec(entry);
    if (!match || Number(match[1]) <= 0) throw new Error(`"${entry.trim()}" is not a positive duration such as 500ms, 5s, 5m, 2h or 1d`);
    return Number(match[1]) * UNITS[match[2]!]!;
  });
}
