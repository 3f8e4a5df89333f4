import { logger } from "#adapters/powertools-logger.ts";
import { processContainer } from "#wiring/container.ts";
import { expireDue } from "#http/job-runner.ts";
import { jobExpiryDeps } from "#wiring/jobs.ts";
import { webhookEvents } from "#wiring/webhooks.ts";

// The webhook sweeper on AWS: an EventBridge rule runs it every minute (infra/webhook-sweeper.ts);
// it sends job.expired for jobs with a callbackUrl whose results expired, and makes the webhook
// attempts that are due (the due queue in the key table) until none is left or its time runs short. Locally the server's in-process sweeper does the same (local/webhook-sweeper.ts).

/** SWEEP_BUDGET_MS is how long one run starts new batches: 40 s of its 60 s time-out, so a batch under way finishes. */
const SWEEP_BUDGET_MS = 40_000;

const container = processContainer();
const events = webhookEvents(container);
const expiry = jobExpiryDeps(container);

/**
 * handler first expires the jobs with a callbackUrl whose results passed their expiry (their
 * job.expired deliveries join the due queue), then makes every due attempt it can within its
 * budget; the scheduled event carries nothing it needs.
 */
export async function handler(): Promise<{ attempts: number; expired: number }> {
  const started = Date.now();
  let expired = 0;
  for (let made = -1; expiry && made !== 0 && Date.now() - started < SWEEP_BUDGET_MS / 4; ) {
    made = await expireDue(expiry, 25);
    expired += made;
  }
  let attempts = 0;
  for (let made = -1; made !== 0 && Date.now() - started < SWEEP_BUDGET_MS; ) {
    made = await events.sweep();
    attempts += made;
  }
  logger.info("webhook sweep", { attempts, expired, ms: Date.now() - started });
  return { attempts, expired };
}
