/**
 * The seam between async jobs and webhooks: the job side reports a finished job and shows its
 * deliveries; the webhook side (functions/domain/webhooks/) implements JobEvents.
 */

/** FinishedJob is a job that reached an end state, as its webhook reports it. */
export interface FinishedJob {
  id: string;
  ownerKeyId: string;
  /** The HTTPS URL the job's request named; no webhook without it. */
  callbackUrl?: string;
  status: "succeeded" | "failed" | "expired";
  /** ISO 8601. */
  finishedAt: string;
  result?: unknown;
  error?: unknown;
}

/** DeliveryAttempt is one attempt to deliver a job's webhook, as GET /v1/jobs/{id} shows it. */
export interface DeliveryAttempt {
  /** The webhook-id header: the same on every attempt of one job's event. */
  webhookId: string;
  /** 1 for the first attempt, counting redeliveries. */
  attempt: number;
  /** When the attempt started (ISO 8601). */
  at: string;
  durationMs: number;
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** Why the attempt failed, when it did not get a 2xx. */
  error?: string;
  /** True for an attempt asked for with POST /v1/jobs/{id}/redeliver. */
  redelivery: boolean;
  /** The delivery's state after this attempt: retried later (pending), delivered, or given up (dead-lettered). */
  state: "pending" | "delivered" | "dead-lettered";
  /** When pending: when the next attempt is due (ISO 8601). */
  nextAttemptAt?: string;
}

/** JobEvents is what the job side calls: report a finished job, list its deliveries, send its webhook again. */
export interface JobEvents {
  jobFinished(job: FinishedJob): Promise<void>;
  deliveriesOf(jobId: string): Promise<DeliveryAttempt[]>;
  redeliver(jobId: string, ownerKeyId: string): Promise<void>;
}

/** noJobEvents is the JobEvents of a server without webhooks: nothing is sent, nothing was delivered. */
export const noJobEvents: JobEvents = {
  jobFinished: async () => undefined,
  deliveriesOf: async () => [],
  redeliver: async () => undefined,
};
