/**
 * The seam between async jobs and webhooks: the job runner tells JobEvents when a job ends, the
 * job resource shows its deliveries, and POST /v1/jobs/{id}/redeliver asks for another one. The
 * webhooks side (Standard Webhooks v1 deliveries to the job's callbackUrl) implements it; without
 * it, noJobEvents answers nothing happened.
 */

/** FinishedJob is a job at its end, as a webhook describes it. */
export interface FinishedJob {
  id: string;
  ownerKeyId: string;
  /** The HTTPS URL the submitter named (checked against the address policy at submit time). */
  callbackUrl?: string;
  status: "succeeded" | "failed" | "expired";
  /** ISO-8601. */
  finishedAt: string;
  /** What GET /v1/jobs/{id} shows as `result` (a succeeded job). */
  result?: unknown;
  /** What GET /v1/jobs/{id} shows as `error`, the usual error layout (a failed job). */
  error?: unknown;
}

/** DeliveryAttempt is one attempt to deliver a job's webhook, as the webhooks side records it. */
export interface DeliveryAttempt {
  /** ISO-8601 time of the attempt. */
  at: string;
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  /** Why the attempt failed, when it did. */
  error?: string;
  durationMs?: number;
  [member: string]: unknown;
}

/** JobEvents is the port the webhooks side implements. */
export interface JobEvents {
  /** jobFinished is called once a job reaches succeeded, failed or expired. */
  jobFinished(job: FinishedJob): Promise<void>;
  /** deliveriesOf lists the delivery attempts of a job's webhook (empty without a callback). */
  deliveriesOf(jobId: string): Promise<DeliveryAttempt[]>;
  /** redeliver sends the job's webhook again now. */
  redeliver(jobId: string, ownerKeyId: string): Promise<void>;
}

/** noJobEvents is the JobEvents of a server without webhooks: nothing is sent, nothing was delivered. */
export const noJobEvents: JobEvents = {
  jobFinished: async () => undefined,
  deliveriesOf: async () => [],
  redeliver: async () => undefined,
};
