import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCallbackUrlCheck } from "#adapters/callback-url-check.ts";
import { createSafeWebhookSender } from "#adapters/safe-fetcher.ts";
import { readJob, submitJob, waitForJob } from "#test/helpers/jobs.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makeLargePdf } from "#test/helpers/large-docs.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";
import { verifiedBy } from "#test/helpers/webhook-harness.ts";
import { startWebhookReceiver, type WebhookReceiver } from "#test/helpers/webhook-receiver.ts";

// Results expire (SIGNET_JOB_TTL, here 1 s) and work over the synchronous budget
// (SIGNET_SYNC_BUDGET_MS, here 1 ms: no signing finishes within it) completes through a job.
// A job with a callbackUrl gets job.expired once its result expires (the receiver on loopback:
// the container is given a callback check and a sender that allow 127.0.0.1, as in jobs-webhooks).

let api: LocalApi;
let key: string;
let input: Buffer;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  const overrides = {
    callbackCheck: createCallbackUrlCheck({ allowAddresses: ["127.0.0.1"] }),
    webhookSender: createSafeWebhookSender({ allowAddresses: ["127.0.0.1"], ca: [receiver.ca], timeoutMs: 10_000 }),
  };
  api = await startLocalApi(
    "jobs-expiry",
    {
      SIGNET_TABLE: "signet-jobs-expiry",
      SIGNET_CONVERSION_MODE: "oneshot",
      SIGNET_JOB_TTL: "1",
      SIGNET_SYNC_BUDGET_MS: "1",
      // Jobs are read every 50 ms: far over the default 60 requests per minute.
      SIGNET_KEY_RATE_LIMIT: "100000",
    },
    { overrides },
  );
  key = await obtainKey(api, "jobs-expiry");
  input = await makePdf(1);
}, 120_000);

afterAll(async () => {
  await api?.close();
  await receiver?.close();
});

const signBody = (eventId: string) => ({
  document: { base64: input.toString("base64") },
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
  eventId,
});

/** objectsOf lists the S3 stand-in's files of a job (its request and result under jobs/<id>/). */
const objectsOf = (id: string) => {
  const bucket = join(api.dataDir, "s3", "signet-uploads");
  return existsSync(bucket) ? readdirSync(bucket).filter((name) => decodeURIComponent(name).startsWith(`jobs/${id}/`)) : [];
};

it("work over the synchronous budget answers 504 SYNC_TIMEOUT naming respond-async; the same work as a job succeeds", async () => {
  const sync = await api.postJson("/v1/sign", signBody("evt_sync_budget"), key);
  expect(sync.status).toBe(504);
  expect(sync.json).toMatchObject({ code: "SYNC_TIMEOUT", message: expect.stringContaining("Prefer: respond-async") });
  const submitted = await submitJob(api, "/v1/sign", signBody("evt_sync_budget"), key);
  expect(submitted.status).toBe(202);
  const job = await waitForJob(api, submitted.json.id, key);
  expect(job.status).toBe("succeeded");
  const answer = (await (await fetch(job.result!.url!)).json()) as { document: { base64: string } };
  await expectSignedPdf(Buffer.from(answer.document.base64, "base64"), { input });
}, 60_000);

it("a result past SIGNET_JOB_TTL is deleted: its objects are gone, its URL answers 404 and the job reads expired", async () => {
  // Over 256 KB, so the request is kept in the bucket rather than in the job's item.
  const large = await makeLargePdf(400 * 1024);
  const submitted = await submitJob(api, "/v1/sign", { ...signBody("evt_expiry"), document: { base64: large.toString("base64") } }, key);
  const id = submitted.json.id as string;
  // Its request is kept in the bucket while the job waits and runs (read at once: signing 400 KB takes far longer), deleted when it ends.
  expect(objectsOf(id).map((name) => decodeURIComponent(name))).toContain(`jobs/${id}/request`);
  const done = await waitForJob(api, id, key, (job) => job.status !== "queued" && job.status !== "running");
  // Deleted just after the job's record says it ended: wait for it (the test's time-out bounds the wait).
  while (objectsOf(id).some((name) => decodeURIComponent(name) === `jobs/${id}/request`)) await new Promise((resolve) => setTimeout(resolve, 20));
  // The pool may have expired it already (1 s); if not, its result is still there.
  if (done.status === "succeeded") expect((await fetch(done.result!.url!)).status).toBe(200);
  const expired = await waitForJob(api, id, key, (job) => job.status === "expired");
  expect(expired.result).toBeUndefined();
  expect(objectsOf(id)).toEqual([]);
  // The result URL gives nothing any more (403 once the URL itself expired, 404 before).
  if (done.status === "succeeded") expect([403, 404]).toContain((await fetch(done.result!.url!)).status);
  expect((await readJob(api, id, key)).json.status).toBe("expired");
}, 60_000);

it("a job with a callbackUrl gets job.succeeded, then job.expired once its result expires: each verified, job.expired once", async () => {
  const secret = ((await (await fetch(`${api.url}/v1/webhooks/secret`, { headers: { authorization: `Bearer ${key}` } })).json()) as { secret: string }).secret;
  const submitted = await submitJob(api, "/v1/sign", { ...signBody("evt_expired_hook"), callbackUrl: receiver.url("/expiry") }, key);
  expect(submitted.status).toBe(202);
  const id = submitted.json.id as string;
  const eventsOf = () => receiver.received.filter((one) => JSON.parse(one.body).data.id === id);
  // The pool expires it (TTL 1 s) without anyone reading the job; the sweeper delivers both events.
  while (eventsOf().length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
  const [succeeded, expired] = eventsOf();
  expect(verifiedBy(secret, succeeded!)).toMatchObject({ type: "job.succeeded", data: { id } });
  expect(verifiedBy(secret, expired!)).toMatchObject({ type: "job.expired", data: { id, status: "expired" } });
  expect(expired!.headers["webhook-id"]).not.toBe(succeeded!.headers["webhook-id"]);
  // Reading the expired job (which expires a job past its time) sends nothing more.
  expect((await readJob(api, id, key)).json).toMatchObject({
    status: "expired",
    deliveries: [expect.objectContaining({ state: "delivered" }), expect.objectContaining({ state: "delivered" })],
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(eventsOf()).toHaveLength(2);
}, 60_000);
