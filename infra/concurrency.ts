import type { CfnFunction, Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";

/**
 * Reserved concurrency is opt-in. Lambda refuses any reservation that leaves fewer
 * than UNRESERVED_MINIMUM executions of the account's concurrency quota unreserved
 * (PutFunctionConcurrency), and new accounts often start with a quota of 10: there any
 * reservation fails, the function is not created and the whole stack rolls back. So the default
 * template reserves nothing; cost stays bounded by the gateway's stage throttling, the per-key
 * rate limit, the account's own concurrency quota and, with alarmEmail, the budget alarm.
 */

/** UNRESERVED_MINIMUM is what Lambda keeps unreserved in every account (PutFunctionConcurrency). */
export const UNRESERVED_MINIMUM = 100;

/**
 * reservableFunctions are the functions `-c reservedConcurrency=N` caps: the expensive ones anyone
 * with a key (or anyone at all, for verify) can start. At N = 5 a flood costs at most
 * 3 x 5 x 1.5 GB + 5 x 1 GB, plus the office function, which a converting caller invokes one job
 * at a time (at most 15 x 3 GB): 72.5 GB-seconds per second (about USD 4.40 an hour at
 * USD 0.0000167 per GB-second); 20 reserved in all, which needs an account quota of at least 120.
 */
export const reservableFunctions = ["sign", "annotate", "convert", "verify"] as const;

/** ReservedConcurrency maps a function name to its reserved executions; empty reserves nothing. */
export type ReservedConcurrency = Partial<Record<(typeof reservableFunctions)[number], number>>;

const camel = (name: string): string => name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());

function wholeNumber(name: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`Context ${name} must be a whole number >= 1 (or reservedConcurrency=off), got "${raw}".`);
  return value;
}

/**
 * reservedConcurrencyFromContext reads `-c reservedConcurrency=N` (every reservable function) and
 * `-c signConcurrency=N` and the like (one function; wins over the former). Unset, "off", "none",
 * "false" or "0": nothing reserved.
 */
export function reservedConcurrencyFromContext(context: (name: string) => string | undefined): ReservedConcurrency {
  const setting = context("reservedConcurrency");
  const off = setting === undefined || ["off", "false", "0", "none"].includes(setting.toLowerCase());
  const all = off ? undefined : wholeNumber("reservedConcurrency", setting);
  const reserved: ReservedConcurrency = {};
  for (const name of reservableFunctions) {
    const own = context(`${camel(name)}Concurrency`);
    const count = own === undefined ? all : wholeNumber(`${camel(name)}Concurrency`, own);
    if (count !== undefined) reserved[name] = count;
  }
  return reserved;
}

/** minimumAccountQuota is the smallest account concurrency quota a reservation fits in (0 when none is asked for). */
export function minimumAccountQuota(reserved: ReservedConcurrency): number {
  const total = Object.values(reserved).reduce((sum, count) => sum + count, 0);
  return total === 0 ? 0 : total + UNRESERVED_MINIMUM;
}

/** applyReservedConcurrency sets ReservedConcurrentExecutions on the named functions and nowhere else. */
export function applyReservedConcurrency(functions: Record<string, LambdaFunction>, reserved: ReservedConcurrency): void {
  for (const [name, count] of Object.entries(reserved)) {
    const fn = functions[name];
    if (!fn) throw new Error(`Reserved concurrency names ${name}, which is no function of this stack.`);
    (fn.node.defaultChild as CfnFunction).reservedConcurrentExecutions = count;
  }
}
