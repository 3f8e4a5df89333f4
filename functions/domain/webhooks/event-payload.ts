import type { FinishedJob } from "#domain/jobs/job-events.ts";

/** EventType is the type of a job's webhook: its end state. */
export type EventType = `job.${FinishedJob["status"]}`;

/** JobEvent is the body of a job's webhook (Standard Webhooks' recommended shape: type, timestamp, data). */
export interface JobEvent {
  type: EventType;
  /** When the job finished (ISO 8601). */
  timestamp: string;
  data: { id: string; status: FinishedJob["status"]; finishedAt: string; result?: unknown; error?: unknown };
}

/** jobEvent is the webhook body of a finished job: no owner, no callback URL, only what GET /v1/jobs/{id} shows. */
export function jobEvent(job: FinishedJob): JobEvent {
  const { id, status, finishedAt, result, error } = job;
  return {
    type: `job.${status}`,
    timestamp: finishedAt,
    data: { id, status, finishedAt, ...(result === undefined ? {} : { result }), ...(error === undefined ? {} : { error }) },
  };
}
