import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { logger } from "#adapters/powertools-logger.ts";
import type { FinishedJob, JobEvents } from "#domain/jobs/job-events.ts";
import { type JobRecord, type JobStore, MAX_ATTEMPTS, outcomeOf } from "#domain/jobs/job.ts";
import { answerOf } from "#http/idempotency.ts";
import { toErrorResponse } from "#http/error-response.ts";
import { asJobRun } from "#http/jobs.ts";
import { errorResponse } from "#http/error-response.ts";
import type { HttpResponse } from "#http/responses.ts";

/** RouteInvoker calls a route's own Lambda handler with an event, as the gateway would, and gives its whole answer. */
export type RouteInvoker = (route: string, event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;

/** JobRunnerDeps are what running a job needs. */
export interface JobRunnerDeps {
  store: JobStore;
  events: JobEvents;
  invoke: RouteInvoker;
  now: () => number;
  /** The run's budget (SIGNET_JOB_BUDGET_SECONDS, 15 minutes): its lease, and the time the handler is told it has. */
  budgetMs: number;
  /** How long the result is kept after the run (SIGNET_JOB_TTL). */
  ttlMs: number;
  /**
   * Runs started before this time are taken over at once: the local server holds its data folder
   * alone, so a job still running from before its start belongs to a process that died.
   */
  staleBefore?: number;
}

/** LEASE_MARGIN_MS is added to a run's budget before another worker may take the job over. */
const LEASE_MARGIN_MS = 60_000;

/** jobContext is the Lambda context of a job's run: the route's function name, the run's budget as its time left. */
function jobContext(route: string, jobId: string, deadline: number, now: () => number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: `signet-${route}`,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:signet-${route}`,
    memoryLimitInMB: "3008",
    awsRequestId: jobId,
    logGroupName: `/aws/lambda/signet-${route}`,
    logStreamName: "job",
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** finishedEvent is a finished job as JobEvents.jobFinished takes it. */
function finishedEvent(job: JobRecord, status: FinishedJob["status"], finishedAt: number, view: { result?: unknown; error?: unknown }): FinishedJob {
  return {
    id: job.id,
    ownerKeyId: job.ownerKeyId,
    ...(job.callbackUrl ? { callbackUrl: job.callbackUrl } : {}),
    status,
    finishedAt: new Date(finishedAt).toISOString(),
    ...view,
  };
}

/** errorOf is the usual error layout of a failed answer (its JSON body), or undefined when it has none. */
export function errorOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return undefined;
  }
}

/** runAnswer runs the job's request through its route's handler; whatever it throws becomes the usual error answer. */
async function runAnswer(job: JobRecord, deps: JobRunnerDeps, context?: Context): Promise<HttpResponse> {
  if (job.attempts > MAX_ATTEMPTS) {
    return errorResponse(
      "INTERNAL_ERROR",
      `The job's run ended without an answer ${MAX_ATTEMPTS} times (a crash or a time-out of the worker); the failures are logged under the job id.`,
      job.id,
    );
  }
  try {
    const event = JSON.parse((await deps.store.requestOf(job.id)).toString("utf8")) as APIGatewayProxyEvent;
    const deadline = deps.now() + deps.budgetMs;
    return await deps.invoke(job.route, asJobRun(event, job.id), context ?? jobContext(job.route, job.id, deadline, deps.now));
  } catch (error) {
    return toErrorResponse(error, job.id);
  }
}

/**
 * runJob runs a queued job (or takes over one whose worker died) through its route's handler and
 * keeps the answer: 2xx succeeded, anything else failed with the error in the usual layout. A job
 * another worker holds, or one already finished, is left alone ("skipped": a queue may deliver twice).
 * A store failure is thrown, so the queue delivers the job again.
 */
export async function runJob(id: string, deps: JobRunnerDeps, context?: Context): Promise<"finished" | "skipped"> {
  const job = await deps.store.claim(id, deps.now(), deps.now() + deps.budgetMs + LEASE_MARGIN_MS, deps.staleBefore);
  if (!job) return "skipped";
  const answer = answerOf(await runAnswer(job, deps, context));
  const outcome = outcomeOf(answer);
  const finishedAt = deps.now();
  if (!(await deps.store.finish(job, outcome, finishedAt, finishedAt + deps.ttlMs))) return "skipped";
  const view =
    outcome.status === "failed"
      ? { error: errorOf(answer.body) }
      : { result: { statusCode: answer.statusCode, contentType: answer.headers["Content-Type"] ?? "" } };
  await deps.events.jobFinished(finishedEvent(job, outcome.status, finishedAt, view)).catch((error: unknown) => {
    logger.warn("job event not handled", { jobId: id, error: error as Error });
  });
  return "finished";
}

/** ExpiryDeps are what expiring jobs needs. */
export type ExpiryDeps = Pick<JobRunnerDeps, "store" | "events" | "now">;

/** expireJob deletes a finished job's request and result once they pass their expiry, and tells JobEvents (job.expired, once). */
export async function expireJob(job: JobRecord, deps: ExpiryDeps): Promise<void> {
  if (!(await deps.store.expire(job.id))) return;
  await deps.events.jobFinished(finishedEvent(job, "expired", deps.now(), {})).catch((error: unknown) => {
    logger.warn("job event not handled", { jobId: job.id, error: error as Error });
  });
}

/** expireDue expires up to `limit` finished jobs past their expiry (the local pool, the webhook sweeper on AWS); how many. */
export async function expireDue(deps: ExpiryDeps, limit = 16): Promise<number> {
  const { store } = deps;
  const due = await store.dueToExpire(deps.now(), limit);
  for (const id of due) {
    const job = await store.get(id);
    if (job) await expireJob(job, deps);
    else await store.expire(id);
  }
  return due.length;
}
