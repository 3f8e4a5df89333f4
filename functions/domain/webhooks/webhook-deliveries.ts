import { randomUUID } from "node:crypto";
import type { DeliveryAttempt, FinishedJob, JobEvents } from "#domain/jobs/job-events.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { jobEvent } from "#domain/webhooks/event-payload.ts";
import { nextAttemptAt } from "#domain/webhooks/retry-schedule.ts";
import { newWebhookId, webhookHeaders } from "#domain/webhooks/standard-webhooks.ts";
import { secretsFor, signingSecrets } from "#domain/webhooks/webhook-secrets.ts";
import type { WebhookSender } from "#domain/webhooks/webhook-sender.ts";
import type { Delivery, DeliveryStore, DueDelivery, SecretStore } from "#domain/webhooks/webhook-store.ts";

/** MAX_ATTEMPTS_KEPT bounds one delivery's record: redeliveries stop once this many attempts are recorded. */
const MAX_ATTEMPTS_KEPT = 100;

/** WebhookDeps are the stores, the sender, the clock and the back-off. */
export interface WebhookDeps {
  secrets: SecretStore;
  deliveries: DeliveryStore;
  sender: WebhookSender;
  now: () => number;
  /** Delays before the 2nd, 3rd, ... scheduled attempt (ms); its length + 1 attempts in all. */
  schedule: readonly number[];
  /** How long a claimed attempt is held before another sweeper may make it (above the sender's time limit). */
  leaseMs: number;
  warn: (message: string, data?: Record<string, unknown>) => void;
}

/** AttemptFacts are what one POST came to. */
type AttemptFacts = Pick<DeliveryAttempt, "at" | "durationMs" | "statusCode" | "error"> & { delivered: boolean; permanent: boolean };

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * deliveryKey names a job's delivery in the store: the job id for its end (succeeded or failed),
 * a second one for job.expired, which comes later and is delivered on its own.
 */
function deliveryKey(jobId: string, status: FinishedJob["status"]): string {
  return status === "expired" ? `${jobId}.expired` : jobId;
}

/**
 * WebhookDeliveries is JobEvents on Standard Webhooks: a finished job with a callbackUrl gets one
 * delivery (one webhook-id, one frozen body), and one more when its result expires (job.expired);
 * each is due at once and then on the back-off until a 2xx, a permanent refusal or the last
 * attempt; `sweep` makes the attempts that are due (the sweeper, woken when a delivery is queued).
 */
export class WebhookDeliveries implements JobEvents {
  readonly #deps: WebhookDeps;
  readonly #listeners: Array<() => void> = [];

  constructor(deps: WebhookDeps) {
    this.#deps = deps;
  }

  /** onQueued calls `listener` after each new delivery is stored (the local server wakes its sweeper). */
  onQueued(listener: () => void): void {
    this.#listeners.push(listener);
  }

  /**
   * jobFinished stores the job's delivery, due at once, and wakes the sweepers: the first attempt
   * is the sweeper's (never the job worker's), so a slow or unreachable receiver holds no worker.
   */
  async jobFinished(job: FinishedJob): Promise<void> {
    if (!job.callbackUrl) return;
    const now = this.#deps.now();
    const delivery: Delivery = {
      jobId: deliveryKey(job.id, job.status),
      ownerKeyId: job.ownerKeyId,
      url: job.callbackUrl,
      webhookId: newWebhookId(),
      body: JSON.stringify(jobEvent(job)),
      state: "pending",
      nextAttemptAt: now,
      scheduledAttempts: 0,
      attempts: [],
    };
    // A job reported twice (a worker retried) keeps its first delivery of that event.
    if (!(await this.#deps.deliveries.createDelivery(delivery))) return;
    for (const listener of this.#listeners) listener();
  }

  /** deliveriesOf lists the attempts of the job's webhook, then those of its job.expired event. */
  async deliveriesOf(jobId: string): Promise<DeliveryAttempt[]> {
    const [finished, expired] = await Promise.all([jobId, deliveryKey(jobId, "expired")].map((key) => this.#deps.deliveries.deliveryOf(key)));
    return [...(finished?.attempts ?? []), ...(expired?.attempts ?? [])];
  }

  async redeliver(jobId: string, ownerKeyId: string): Promise<void> {
    const delivery = await this.#deps.deliveries.deliveryOf(jobId);
    if (!delivery || delivery.ownerKeyId !== ownerKeyId) {
      throw new SignetError("NOT_FOUND", "This job has no webhook to send again: it named no callbackUrl, or it has not finished yet.");
    }
    if (delivery.attempts.length >= MAX_ATTEMPTS_KEPT) {
      throw new SignetError("RATE_LIMIT_ERROR", `This job's webhook was tried ${MAX_ATTEMPTS_KEPT} times; it is not sent again.`);
    }
    const facts = await this.#send(delivery);
    const state = facts.delivered ? "delivered" : delivery.state;
    const attempt = this.#attemptOf(delivery, facts, { redelivery: true, state, nextAttemptAt: state === "pending" ? delivery.nextAttemptAt : undefined });
    await this.#deps.deliveries.addRedelivery(jobId, attempt);
  }

  /** sweep makes up to `limit` due attempts, one at a time; it returns how many it made. */
  async sweep(limit = 25): Promise<number> {
    const due = await this.#deps.deliveries.dueDeliveries(this.#deps.now(), limit);
    let made = 0;
    for (const entry of due) {
      if (await this.#scheduled(entry).catch((error: unknown) => this.#failed(entry, error))) made++;
    }
    return made;
  }

  #failed(entry: DueDelivery, error: unknown): false {
    this.#deps.warn("webhook attempt could not be made", { jobId: entry.jobId, error: error instanceof Error ? error.message : String(error) });
    return false;
  }

  /** scheduled makes the attempt due at entry.dueAt if this process wins its lease; true when it did. */
  async #scheduled(entry: DueDelivery): Promise<boolean> {
    const { deliveries, now, leaseMs, schedule } = this.#deps;
    const token = randomUUID();
    const claimedAt = now();
    const delivery = await deliveries.claim(entry, { now: claimedAt, until: claimedAt + leaseMs, token });
    if (!delivery) return false;
    const facts = await this.#send(delivery);
    const made = delivery.scheduledAttempts + 1;
    const next = facts.delivered || facts.permanent ? undefined : nextAttemptAt(schedule, made, Date.parse(facts.at));
    const state = facts.delivered ? "delivered" : next === undefined ? "dead-lettered" : "pending";
    const attempt = this.#attemptOf(delivery, facts, { redelivery: false, state, nextAttemptAt: next });
    await deliveries.finishScheduled(entry.jobId, entry.dueAt, token, { attempt, state, nextAttemptAt: next, scheduledAttempts: made });
    return true;
  }

  #attemptOf(
    delivery: Delivery,
    facts: AttemptFacts,
    after: { redelivery: boolean; state: DeliveryAttempt["state"]; nextAttemptAt: number | undefined },
  ): DeliveryAttempt {
    const { delivered: _delivered, permanent: _permanent, ...recorded } = facts;
    return {
      webhookId: delivery.webhookId,
      attempt: delivery.attempts.length + 1,
      ...recorded,
      redelivery: after.redelivery,
      state: after.state,
      ...(after.nextAttemptAt === undefined ? {} : { nextAttemptAt: iso(after.nextAttemptAt) }),
    };
  }

  /** send POSTs the delivery once, signed with the owner's secrets as they are now, and says how it went. */
  async #send(delivery: Delivery): Promise<AttemptFacts> {
    const { sender, now } = this.#deps;
    const started = now();
    const secrets = signingSecrets(await secretsFor({ store: this.#deps.secrets, now }, delivery.ownerKeyId), started);
    const headers = {
      "content-type": "application/json",
      ...webhookHeaders(secrets, { id: delivery.webhookId, timestamp: Math.floor(started / 1000), body: delivery.body }),
    };
    const result = await sender.post(delivery.url, { headers, body: delivery.body });
    const timing = { at: iso(started), durationMs: Math.max(0, now() - started) };
    if ("error" in result) return { ...timing, error: result.error, delivered: false, permanent: result.permanent };
    const delivered = result.statusCode >= 200 && result.statusCode < 300;
    return {
      ...timing,
      statusCode: result.statusCode,
      ...(delivered ? {} : { error: `the receiver answered HTTP ${result.statusCode}` }),
      delivered,
      permanent: false,
    };
  }
}
