import { config } from "#config";
import { logger } from "#adapters/powertools-logger.ts";
import { createWebhookEvents } from "#wiring/webhooks.ts";

// The webhook sweeper on AWS: an EventBridge rule runs it every minute (infra/webhook-sweeper.ts);
// it makes the webhook attempts that are due (the due queue in the key table) until none is left
// or its time runs short. Locally the server's in-process sweeper does the same (local/webhook-sweeper.ts).

/** SWEEP_BUDGET_MS is how long one run starts new batches: 40 s of its 60 s time-out, so a batch under way finishes. */
const SWEEP_BUDGET_MS = 40_000;

const events = createWebhookEvents(config);

/** handler makes every due attempt it can within its budget; the scheduled event carries nothing it needs. */
export async function handler(): Promise<{ attempts: number }> {
  const started = Date.now();
  let attempts = 0;
  for (let made = -1; made !== 0 && Date.now() - started < SWEEP_BUDGET_MS; ) {
    made = await events.sweep();
    attempts += made;
  }
  logger.info("webhook sweep", { attempts, ms: Date.now() - started });
  return { attempts };
}
