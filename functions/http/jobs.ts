import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { SignetError } from "#domain/shared/errors.ts";
import type { JobEvents } from "#domain/jobs/job-events.ts";
import { type JobQueue, type JobRecord, type JobStore, RETRY_AFTER_SECONDS, isFinished, newJobId } from "#domain/jobs/job.ts";
import type { Principal } from "#http/caller.ts";
import { partsOf, type PipelineEvent, type PipelineMiddleware, type RequestParts } from "#http/middlewares/chain.ts";
import { json, type HttpResponse } from "#http/responses.ts";
import { JOB_AFTER_WORK_MS } from "#functions/timeouts.ts";

/**
 * Async jobs on the working routes (sign, annotate, convert, verify, timestamp): with
 * `Prefer: respond-async` the request is kept as a job and answered 202 with the job, Location
 * and Retry-After; a worker later runs it through the same handler (runJob,
 * functions/http/job-runner.ts). Without the header the route answers as it always did, within
 * the synchronous budget (SIGNET_SYNC_BUDGET_MS, when set).
 */

/** JobDeps are what submitting and showing jobs need (functions/wiring/jobs.ts builds them from config). */
export interface JobDeps {
  store: JobStore;
  queue: JobQueue;
  events: JobEvents;
  /** Epoch milliseconds. */
  now: () => number;
  /** How long a finished job's result is kept (SIGNET_JOB_TTL). */
  ttlMs: number;
  /** The run's budget (SIGNET_JOB_BUDGET_SECONDS): a job not finished by then is taken over. */
  budgetMs: number;
  /** A synchronous request's budget in ms (SIGNET_SYNC_BUDGET_MS); 0: the route's own time-out only. */
  syncBudgetMs: number;
  /** The caller of a route without the authorizer (verify), from its Authorization header; undefined when none or not valid. */
  authenticate: (authorization: string | undefined) => Promise<Principal | undefined>;
  /** Refuses (VALIDATION_ERROR, naming `field`, body.callbackUrl by default) a callback URL that is not HTTPS to a public address. */
  checkCallback: (url: string, field?: string) => Promise<void>;
}

/** JOB_RUN marks an event a worker runs as a job: set on requestContext, which no client request can carry. */
const JOB_RUN = "signetJobId";

/** jobRunOf is the id of the job this event runs, if it is a job's run. */
export function jobRunOf(event: APIGatewayProxyEvent): string | undefined {
  const id = (event.requestContext as unknown as Record<string, unknown> | undefined)?.[JOB_RUN];
  return typeof id === "string" ? id : undefined;
}

/** asJobRun marks a stored request as the run of a job (functions/http/job-runner.ts). */
export function asJobRun(event: APIGatewayProxyEvent, jobId: string): APIGatewayProxyEvent {
  return { ...event, requestContext: { ...event.requestContext, [JOB_RUN]: jobId } as APIGatewayProxyEvent["requestContext"] };
}

/** prefersAsync tells whether the request asks `Prefer: respond-async` (RFC 7240; other preferences may come beside it). */
function prefersAsync(event: APIGatewayProxyEvent): boolean {
  const values = Object.entries(event.multiValueHeaders ?? {})
    .filter(([name]) => name.toLowerCase() === "prefer")
    .flatMap(([, given]) => given ?? []);
  const single = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === "prefer")?.[1];
  return [...values, single ?? ""].some((value) => value.split(/[,;]/).some((preference) => preference.trim().toLowerCase() === "respond-async"));
}

/** DROPPED_HEADERS are left out of a kept request: its run is neither async again nor the idempotent first request. */
const DROPPED_HEADERS = new Set(["prefer", "idempotency-key", "authorization"]);

/** storedRequest is the request as a job keeps it: the event with its decoded body as base64, without DROPPED_HEADERS. */
function storedRequest(event: PipelineEvent): Buffer {
  const keep = <V>(headers: Record<string, V> | null | undefined) =>
    Object.fromEntries(Object.entries(headers ?? {}).filter(([name]) => !DROPPED_HEADERS.has(name.toLowerCase())));
  const { rawBody } = partsOf(event);
  const stored = {
    resource: event.resource,
    path: event.path,
    httpMethod: event.httpMethod,
    headers: keep(event.headers),
    multiValueHeaders: keep(event.multiValueHeaders),
    queryStringParameters: event.queryStringParameters,
    multiValueQueryStringParameters: event.multiValueQueryStringParameters,
    pathParameters: event.pathParameters,
    stageVariables: null,
    requestContext: event.requestContext,
    body: (rawBody ?? Buffer.alloc(0)).toString("base64"),
    isBase64Encoded: true,
  };
  return Buffer.from(JSON.stringify(stored), "utf8");
}

/** jobLocation is the job resource's path. */
const jobLocation = (id: string) => `/v1/jobs/${id}`;

/** JobView is the job resource as GET /v1/jobs/{id} and the 202 show it. */
export interface JobView {
  id: string;
  status: JobRecord["status"];
  route: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  expiresAt?: string;
  callbackUrl?: string;
  result?: { statusCode: number; contentType: string; url?: string; urlExpiresAt?: string; body?: unknown; base64?: string };
  error?: unknown;
  deliveries?: unknown[];
}

const iso = (ms: number | undefined) => (ms === undefined ? {} : { value: new Date(ms).toISOString() });

/** baseView is what every view of a job shows: its state and times. */
export function baseView(job: JobRecord): JobView {
  const times = {
    startedAt: iso(job.startedAt).value,
    finishedAt: iso(job.finishedAt).value,
    expiresAt: isFinished(job.status) ? iso(job.expiresAt).value : undefined,
  };
  return {
    id: job.id,
    status: job.status,
    route: job.route,
    createdAt: new Date(job.createdAt).toISOString(),
    ...Object.fromEntries(Object.entries(times).filter(([, value]) => value !== undefined)),
    ...(job.callbackUrl ? { callbackUrl: job.callbackUrl } : {}),
  };
}

/** accepted is the 202 of a submitted job: Location, Retry-After, Preference-Applied and the job. */
function accepted(job: JobRecord): HttpResponse {
  return json(202, baseView(job), {
    Location: jobLocation(job.id),
    "Retry-After": String(RETRY_AFTER_SECONDS),
    "Preference-Applied": "respond-async",
  });
}

/** submit keeps the request as a queued job of its caller and queues it. */
async function submit(event: PipelineEvent, route: string, deps: JobDeps): Promise<HttpResponse> {
  const parts = partsOf(event);
  const principal = parts.principal ?? (await deps.authenticate(event.headers?.authorization));
  if (!principal) {
    throw new SignetError(
      "AUTHENTICATION_ERROR",
      "Prefer: respond-async needs your API key (Authorization: Bearer sgn_...): a job belongs to the key that submits it.",
    );
  }
  if (parts.callbackUrl !== undefined) await deps.checkCallback(parts.callbackUrl, parts.callbackField);
  const now = deps.now();
  const job: JobRecord = {
    id: newJobId(),
    ownerKeyId: principal.keyId,
    route,
    status: "queued",
    ...(parts.callbackUrl === undefined ? {} : { callbackUrl: parts.callbackUrl }),
    createdAt: now,
    attempts: 0,
    // Until a run finishes it: its budget at most twice more, then the result's own time.
    expiresAt: now + 3 * deps.budgetMs + deps.ttlMs,
  };
  await deps.store.create(job, storedRequest(event));
  await deps.queue.enqueue(job.id);
  return accepted(job);
}

/** withSyncBudget answers 504 when the work has not finished within the synchronous budget (the work itself is not stopped). */
async function withSyncBudget(work: Promise<HttpResponse>, budgetMs: number): Promise<HttpResponse> {
  if (budgetMs <= 0) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new SignetError(
            "SYNC_TIMEOUT",
            `The work did not finish within this server's synchronous budget of ${budgetMs} ms; send the request again with the header Prefer: respond-async and fetch the result from the job.`,
          ),
        ),
      budgetMs,
    );
  });
  // The work's own failure after the answer went out is logged by whoever awaits it; here it is dropped.
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

type Work = (event: PipelineEvent, context: Context) => Promise<HttpResponse>;

/**
 * respondAsync wraps a working route's handler: a job's run goes straight to it, a request with
 * `Prefer: respond-async` becomes a job (202), any other request runs within the synchronous budget.
 */
export function respondAsync(work: Work, deps: JobDeps, route: string): Work {
  return async (event, context) => {
    if (jobRunOf(event) !== undefined) {
      partsOf(event).jobDeadline = Date.now() + context.getRemainingTimeInMillis();
      return work(event, context);
    }
    if (prefersAsync(event)) return submit(event, route, deps);
    return withSyncBudget(work(event, context), deps.syncBudgetMs);
  };
}

/** callbackFromBody takes the `callbackUrl` member out of a JSON body (the route's schema does not know it). */
function callbackFromBody(parts: RequestParts): void {
  let value: unknown;
  try {
    value = JSON.parse((parts.rawBody ?? Buffer.alloc(0)).toString("utf8"));
  } catch {
    return; // not JSON: the body's own validation says what is wrong
  }
  if (typeof value !== "object" || value === null || Array.isArray(value) || !("callbackUrl" in value)) return;
  const { callbackUrl, ...rest } = value as Record<string, unknown>;
  if (typeof callbackUrl !== "string") {
    throw new SignetError("VALIDATION_ERROR", "callbackUrl must be an https:// URL.", { details: [{ field: "body.callbackUrl", issue: "not a string" }] });
  }
  parts.callbackUrl = callbackUrl;
  parts.rawBody = Buffer.from(JSON.stringify(rest), "utf8");
}

/**
 * asyncBody takes a request's `callbackUrl` before the body is validated: from the query on a
 * route whose body is not JSON (convert's multipart: `?callbackUrl=`, which only a request asking
 * respond-async may carry), else the member out of a JSON body that asks respond-async (the
 * route's schema does not know it); a JSON request without the preference keeps its body as it
 * is (a callbackUrl there is an unknown member: 400).
 */
export function asyncBody(): PipelineMiddleware {
  return {
    name: "asyncBody",
    before: (request) => {
      const { event } = request;
      if (jobRunOf(event) !== undefined) return;
      const parts = partsOf(event);
      const fromQuery = (parts.query as Record<string, unknown> | undefined)?.callbackUrl;
      if (typeof fromQuery === "string") {
        if (!prefersAsync(event)) {
          throw new SignetError("VALIDATION_ERROR", "callbackUrl is for jobs: send it with the header Prefer: respond-async.", {
            details: [{ field: "query.callbackUrl", issue: "without Prefer: respond-async" }],
          });
        }
        parts.callbackUrl = fromQuery;
        parts.callbackField = "query.callbackUrl";
        return;
      }
      if (prefersAsync(event)) callbackFromBody(parts);
    },
  };
}

/**
 * jobTimeLimit is the time limit of a long step (a conversion) in a job's run: what the run has
 * left, less JOB_AFTER_WORK_MS (functions/timeouts.ts); empty outside a job, where the step keeps its own limit.
 */
export function jobTimeLimit(jobDeadline: number | undefined, now = Date.now()): { timeoutMs?: number } {
  if (jobDeadline === undefined) return {};
  return { timeoutMs: Math.max(1_000, jobDeadline - now - JOB_AFTER_WORK_MS) };
}
