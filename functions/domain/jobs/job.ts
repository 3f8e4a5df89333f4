import { randomBytes } from "node:crypto";
import type { StoredAnswer } from "#domain/shared/idempotency.ts";

/**
 * Async jobs (`Prefer: respond-async`): a request to a working route is kept, answered 202 with
 * the job, and run off the request path by a worker (SQS and a worker Lambda on AWS, an
 * in-process pool locally) with a 15-minute budget, through the route's own handler. The job's
 * answer (the route's answer, byte for byte) is kept until the job's result expires.
 */

/** jobStatuses are the states of a job, in the order a job passes them. */
export const jobStatuses = ["queued", "running", "succeeded", "failed", "expired"] as const;

/** JobStatus is one of jobStatuses. */
export type JobStatus = (typeof jobStatuses)[number];

/** JOB_ID is the syntax of a job id: `job_` and 22 base64url characters (128 random bits). */
export const JOB_ID = /^job_[A-Za-z0-9_-]{22}$/;

/** newJobId is a fresh job id (unguessable; a job is still only shown to its owner). */
export function newJobId(): string {
  return `job_${randomBytes(16).toString("base64url")}`;
}

/** JobRecord is what the job store keeps of a job (times in epoch ms). */
export interface JobRecord {
  id: string;
  /** The API key id that submitted the job: only it may read it. */
  ownerKeyId: string;
  /** The route whose handler runs the job (sign, annotate, convert, verify, timestamp). */
  route: string;
  status: JobStatus;
  callbackUrl?: string;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  /** Runs started so far (a worker that died leaves its run to be taken over once its lease passes). */
  attempts: number;
  /** Until when the running attempt holds the job. */
  leaseExpiresAt?: number;
  /** When the job's result is deleted and the job reads `expired` (its request went when it finished). */
  expiresAt: number;
  /** The route's answer, once succeeded or failed. */
  answer?: StoredAnswer;
}

/** Outcome is how a run ended: the route's answer, and whether it counts as success. */
export interface Outcome {
  status: "succeeded" | "failed";
  answer: StoredAnswer;
}

/**
 * JobStore keeps jobs (records in the key table, request and large results in the uploads
 * bucket's jobs/ folder), every change a conditional write.
 */
export interface JobStore {
  /** create keeps a new queued job and its request (the gateway event as JSON). */
  create(job: JobRecord, request: Buffer): Promise<void>;
  /** get reads a job (undefined when unknown or forgotten). */
  get(id: string): Promise<JobRecord | undefined>;
  /** requestOf reads the request a job was submitted with. */
  requestOf(id: string): Promise<Buffer>;
  /**
   * claim makes a queued job (or a running one whose lease passed, or whose run started before
   * `staleBefore`) running for this attempt; undefined when it is not to be run.
   */
  claim(id: string, now: number, leaseExpiresAt: number, staleBefore?: number): Promise<JobRecord | undefined>;
  /**
   * finish keeps a run's outcome, if the job is still running, and deletes its request (the
   * document and any password in it: nothing runs it again); false when it is not (another attempt finished it).
   */
  finish(job: Pick<JobRecord, "id" | "createdAt" | "callbackUrl">, outcome: Outcome, finishedAt: number, expiresAt: number): Promise<boolean>;
  /** expire deletes a job's request and result and marks it expired; false when it already was. */
  expire(id: string): Promise<boolean>;
  /** resultUrl is a presigned GET of a result kept in the bucket (undefined: the result is inline). */
  resultUrl(job: JobRecord, expiresInSeconds: number): Promise<string | undefined>;
  /** unfinished lists the ids of queued and running jobs, oldest first (the local pool's queue). */
  unfinished(limit: number): Promise<string[]>;
  /** dueToExpire lists the ids of finished jobs whose results passed their expiry (the local pool's sweep; on AWS the webhook sweeper's, jobs with a callbackUrl). */
  dueToExpire(now: number, limit: number): Promise<string[]>;
}

/** JobQueue hands a queued job to the workers (SQS on AWS; locally the pool reads the store). */
export interface JobQueue {
  enqueue(id: string): Promise<void>;
}

/**
 * StoreQueue is the local queue: a queued job is in the store's unfinished index already, where
 * the in-process pool reads it; enqueue only wakes the pool (listeners), so a job does not wait
 * for the next poll.
 */
export class StoreQueue implements JobQueue {
  readonly #listeners: Array<() => void> = [];

  /** onEnqueue calls `listener` after each job is queued. */
  onEnqueue(listener: () => void): void {
    this.#listeners.push(listener);
  }

  async enqueue(): Promise<void> {
    for (const listener of this.#listeners) listener();
  }
}

/** isFinished tells an ended job from one still to run. */
export function isFinished(status: JobStatus): status is "succeeded" | "failed" | "expired" {
  return status === "succeeded" || status === "failed" || status === "expired";
}

/** outcomeOf calls an answer a success (2xx) or a failure (anything else, its body the error in the usual layout). */
export function outcomeOf(answer: StoredAnswer): Outcome {
  return { status: answer.statusCode < 300 ? "succeeded" : "failed", answer };
}

/** RETRY_AFTER_SECONDS is what a 202 and a job still running suggest before the next GET. */
export const RETRY_AFTER_SECONDS = 1;

/** MAX_ATTEMPTS is how many runs a job gets: a worker that dies twice more (time-out, crash) fails it. */
export const MAX_ATTEMPTS = 3;
