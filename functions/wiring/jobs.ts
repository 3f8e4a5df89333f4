/**
 * Wiring of async jobs (Prefer: respond-async on sign, annotate, convert, verify, timestamp; the
 * job routes; the worker): job records in the key table, requests and results in the uploads
 * bucket's jobs/ folder, SQS on AWS (SIGNET_JOB_QUEUE_URL) or the local server's in-process pool,
 * and the JobEvents of webhooks (functions/wiring/webhooks.ts). Parts of a container.
 */
import type { Config } from "#config";
import { createCallbackUrlCheck } from "#adapters/callback-url-check.ts";
import { createDynamoKeyStore } from "#adapters/dynamodb-key-store.ts";
import { createJobStore } from "#adapters/dynamodb-job-store.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { s3ClientFor } from "#adapters/s3-upload-store.ts";
import { createSqsJobQueue } from "#adapters/sqs-job-queue.ts";
import { authorize } from "#domain/keys/key-service.ts";
import { StoreQueue, type JobStore } from "#domain/jobs/job.ts";
import type { ExpiryDeps, JobRunnerDeps, RouteInvoker } from "#http/job-runner.ts";
import type { JobDeps } from "#http/jobs.ts";
import type { Container } from "#wiring/container.ts";
import { keyStoreOptions } from "#wiring/keys.ts";
import { webhookEvents } from "#wiring/webhooks.ts";

/** storeQueue is a container's local queue (no SIGNET_JOB_QUEUE_URL): it wakes the container's in-process pool. */
export function storeQueue(container: Container): StoreQueue {
  return container.part("storeQueue", () => new StoreQueue());
}

/** jobStoreOf is the job store of a configuration; undefined locally without a key table (a handler called straight from a test). */
function jobStoreOf(config: Config): JobStore | undefined {
  if (config.runtime === "local" && !config.keys.dynamodbEndpoint) return undefined;
  const { bucket, s3Endpoint } = config.uploads;
  if (!bucket) return undefined;
  return createJobStore({
    table: keyStoreOptions(config),
    s3: s3ClientFor({ region: config.region, credentials: config.credentials, endpoint: s3Endpoint }),
    bucket,
    // Only the local server's own pool reads the index: on AWS no function (the worker, the job
    // routes, the sweeper) may write JOBQ, whether or not it holds the queue's URL.
    indexJobs: config.runtime === "local" && config.jobs.queueUrl === undefined,
  });
}

/**
 * jobDepsOf is what submitting and showing jobs need, from a container; undefined where there
 * is no job store (then Prefer: respond-async is not applied, as RFC 7240 allows, and the request
 * is answered synchronously).
 */
function jobDepsOf(container: Container): JobDeps | undefined {
  const { config } = container;
  const store = jobStoreOf(config);
  if (!store) return undefined;
  const { jobs, region } = config;
  const keys = createDynamoKeyStore(keyStoreOptions(config));
  const authenticate = async (authorization: string | undefined) => {
    if (!authorization) return undefined;
    const decision = await authorize({ store: keys, now: Date.now, warn: (message, data) => logger.warn(message, data) }, authorization);
    return decision.allow ? { keyId: decision.keyId, email: decision.email } : undefined;
  };
  return {
    store,
    queue: jobs.queueUrl ? createSqsJobQueue({ region, queueUrl: jobs.queueUrl }) : storeQueue(container),
    events: webhookEvents(container),
    now: Date.now,
    ttlMs: jobs.ttlSeconds * 1000,
    budgetMs: jobs.budgetSeconds * 1000,
    syncBudgetMs: jobs.syncBudgetMs,
    authenticate,
    checkCallback: container.part("callbackCheck", () => createCallbackUrlCheck()),
  };
}

/** jobDeps is a container's JobDeps (submitting and showing jobs), made on first use; undefined without a job store. */
export function jobDeps(container: Container): JobDeps | undefined {
  return container.part("jobDeps", jobDepsOf);
}

/** jobRunnerDeps is what a worker (the local pool, the worker Lambda) needs to run a container's jobs through `invoke`. */
export function jobRunnerDeps(container: Container, invoke: RouteInvoker): JobRunnerDeps | undefined {
  const { config } = container;
  const store = jobStoreOf(config);
  if (!store) return undefined;
  return { store, events: webhookEvents(container), invoke, now: Date.now, budgetMs: config.jobs.budgetSeconds * 1000, ttlMs: config.jobs.ttlSeconds * 1000 };
}

/** jobExpiryDeps is what expiring due jobs needs (the webhook sweeper on AWS: job.expired); undefined without a job store. */
export function jobExpiryDeps(container: Container): ExpiryDeps | undefined {
  const store = jobStoreOf(container.config);
  return store ? { store, events: webhookEvents(container), now: Date.now } : undefined;
}
