import { SignetError } from "#domain/shared/errors.ts";
import type { JobEvents } from "#domain/jobs/job-events.ts";
import { type JobRecord, type JobStore, RETRY_AFTER_SECONDS, isFinished } from "#domain/jobs/job.ts";
import { expireJob, errorOf } from "#http/job-runner.ts";
import { baseView, type JobView } from "#http/jobs.ts";

/** RESULT_URL_SECONDS: a presigned result GET is valid this long (at most until the result expires). */
const RESULT_URL_SECONDS = 3600;

/** JobViewDeps are what showing a job needs. */
export interface JobViewDeps {
  store: JobStore;
  events: JobEvents;
  now: () => number;
}

const notFound = () => new SignetError("NOT_FOUND", "No job with this id for your API key (jobs are shown to the key that submitted them only).");

/** ownJob is a job of the caller's key; another key's job and an unknown id are the same 404. */
export async function ownJob(id: string, keyId: string, deps: JobViewDeps): Promise<JobRecord> {
  const job = await deps.store.get(id);
  if (!job || job.ownerKeyId !== keyId) throw notFound();
  return job;
}

/** resultOf is a succeeded job's result: inline when small (JSON as itself, other answers base64), else a presigned GET. */
async function resultOf(job: JobRecord, deps: JobViewDeps): Promise<JobView["result"]> {
  const answer = job.answer!;
  const contentType = answer.headers["Content-Type"] ?? "";
  const seconds = Math.min(RESULT_URL_SECONDS, Math.floor((job.expiresAt - deps.now()) / 1000));
  const url = await deps.store.resultUrl(job, seconds);
  if (url) return { statusCode: answer.statusCode, contentType, url, urlExpiresAt: new Date(deps.now() + seconds * 1000).toISOString() };
  if (contentType.startsWith("application/json")) return { statusCode: answer.statusCode, contentType, body: JSON.parse(answer.body.toString("utf8")) };
  return { statusCode: answer.statusCode, contentType, base64: answer.body.toString("base64") };
}

/**
 * showJob is the job resource of the caller's job: a finished job past its expiry is expired first
 * (its request and result deleted; on AWS the lifecycle rule deletes them too), then shown with its
 * result or error and the webhook deliveries.
 */
export async function showJob(id: string, keyId: string, deps: JobViewDeps): Promise<{ view: JobView; retryAfter?: number }> {
  let job = await ownJob(id, keyId, deps);
  if ((job.status === "succeeded" || job.status === "failed") && job.expiresAt <= deps.now()) {
    await expireJob(job, deps);
    job = await ownJob(id, keyId, deps);
  }
  const view: JobView = { ...baseView(job), deliveries: await deps.events.deliveriesOf(id) };
  if (job.status === "succeeded") view.result = await resultOf(job, deps);
  if (job.status === "failed") view.error = errorOf(job.answer!.body);
  return isFinished(job.status) ? { view } : { view, retryAfter: RETRY_AFTER_SECONDS };
}
