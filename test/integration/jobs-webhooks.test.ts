// Jobs and their webhooks end to end through the local server (issue 38's gaps): a conversion in a
// job gets the job's budget, not the converter's limit; convert takes ?callbackUrl=; a job's signed
// webhook reaches an HTTPS receiver (the reference verifier accepts it), also after the receiver
// was down; a receiver that never answers holds no job worker; a job run again after its worker
// died gives the first run's answer. The receivers listen on loopback: the server's container is
// given a callback check and a webhook sender that allow 127.0.0.1 (createContainer overrides,
// which no request and no setting can reach), everything else is the server's own.
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createCallbackUrlCheck } from "#adapters/callback-url-check.ts";
import { createSafeWebhookSender } from "#adapters/safe-fetcher.ts";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";
import { readJob, submitJob, waitForJob, type JobView } from "#test/helpers/jobs.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";
import { verifiedBy } from "#test/helpers/webhook-harness.ts";
import { jobDeps } from "#wiring/jobs.ts";
import { startWebhookReceiver, type Received, type WebhookReceiver } from "#test/helpers/webhook-receiver.ts";

let api: LocalApi;
let key: string;
let secret: string;
let receiver: WebhookReceiver;
/** A receiver that takes the request and never answers (until the test ends). */
let silent: WebhookReceiver;
let input: Buffer;

/** The webhook sender's limit: far beyond any job here, so a worker waiting for a receiver would show. */
const WEBHOOK_TIMEOUT_MS = 120_000;

beforeAll(async () => {
  [receiver, silent] = await Promise.all([startWebhookReceiver(), startWebhookReceiver()]);
  silent.mode = "silent";
  api = await startLocalApi(
    "jobs-webhooks",
    {
      SIGNET_TABLE: "signet-jobs-webhooks",
      SIGNET_CONVERSION_MODE: "oneshot",
      // The converter's own limit: no conversion finishes within 1 ms; a job's conversion has the job's budget.
      SIGNET_CONVERSION_TIMEOUT_MS: "1",
      // One worker: a job that held it (waiting for a receiver) would hold every job after it.
      SIGNET_JOB_WORKERS: "1",
      SIGNET_WEBHOOK_RETRY_SCHEDULE: Array(7).fill("300ms").join(","),
      SIGNET_WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS),
      SIGNET_KEY_RATE_LIMIT: "100000",
    },
    {
      overrides: {
        callbackCheck: createCallbackUrlCheck({ allowAddresses: ["127.0.0.1"] }),
        webhookSender: createSafeWebhookSender({ allowAddresses: ["127.0.0.1"], ca: [receiver.ca, silent.ca], timeoutMs: WEBHOOK_TIMEOUT_MS }),
      },
    },
  );
  key = await obtainKey(api, "jobs-webhooks");
  secret = ((await (await fetch(`${api.url}/v1/webhooks/secret`, { headers: { authorization: `Bearer ${key}` } })).json()) as { secret: string }).secret;
  input = await makePdf(1);
}, 120_000);

afterAll(async () => {
  await silent?.close();
  await receiver?.close();
  await api?.close();
});

const signBody = (eventId: string, extra: Record<string, unknown> = {}) => ({
  document: { base64: input.toString("base64") },
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
  eventId,
  ...extra,
});

/** convertRequest POSTs a DOCX to /v1/convert (multipart) with `query` and `headers`. */
async function convertRequest(docx: Buffer, query: string, headers: Record<string, string> = {}) {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(docx)]), "heavy.docx");
  const response = await fetch(`${api.url}/v1/convert?from=docx${query}`, {
    method: "POST",
    body: form,
    headers: { authorization: `Bearer ${key}`, ...headers },
  });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** eventsFor are the webhooks a receiver got for a job, in order. */
const eventsFor = (target: WebhookReceiver, id: string) => target.received.filter((one) => JSON.parse(one.body).data.id === id);

/** waitFor polls `check` every 50 ms until it gives a value (the test's own time-out bounds it). */
async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** resultBytes is a finished job's answer body: fetched from its presigned URL, or inline. */
async function resultBytes(job: JobView): Promise<Buffer> {
  if (job.result?.url) return Buffer.from(await (await fetch(job.result.url)).arrayBuffer());
  return job.result?.base64 ? Buffer.from(job.result.base64, "base64") : Buffer.from(JSON.stringify(job.result?.body));
}

it("a conversion over the converter's limit fails synchronously (CONVERSION_TIMEOUT) and succeeds as a job, whose ?callbackUrl= webhook verifies", async () => {
  // About 12 pages of text: seconds of LibreOffice, far over the converter's 1 ms. (heavy-office.ts's
  // documents are made to stop in the input checks; LibreOffice does not read them.)
  const docx = buildDocx({ body: p(run("lorem ipsum dolor sit amet ".repeat(20))).repeat(600) });
  const sync = await convertRequest(docx, "");
  expect(sync.status).toBe(504);
  expect(JSON.parse(sync.bytes.toString("utf8"))).toMatchObject({ code: "CONVERSION_TIMEOUT" });
  const submitted = await convertRequest(docx, `&callbackUrl=${encodeURIComponent(receiver.url("/convert"))}`, { prefer: "respond-async" });
  expect(submitted.status).toBe(202);
  const { id, callbackUrl } = JSON.parse(submitted.bytes.toString("utf8")) as { id: string; callbackUrl: string };
  expect(callbackUrl).toBe(receiver.url("/convert"));
  const job = await waitForJob(api, id, key);
  expect(job.error).toBeUndefined();
  expect(job.status).toBe("succeeded");
  const pdf = await resultBytes(job);
  expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
  expect(await pdfText(pdf, { first: 1, last: 1 })).toContain("lorem ipsum dolor sit amet");
  const [event] = await waitFor(() => (eventsFor(receiver, id).length > 0 ? eventsFor(receiver, id) : undefined));
  expect(verifiedBy(secret, event!)).toMatchObject({ type: "job.succeeded", data: { id, status: "succeeded" } });
}, 90_000);

it("convert's ?callbackUrl= has the JSON member's checks: only with respond-async, only a public https host (400 naming query.callbackUrl)", async () => {
  const docx = buildDocx({ body: p(run("a few words")) });
  const cases: Array<{ query: string; headers: Record<string, string>; issue: unknown }> = [
    { query: `&callbackUrl=${encodeURIComponent(receiver.url())}`, headers: {}, issue: "without Prefer: respond-async" },
    { query: `&callbackUrl=${encodeURIComponent("https://10.0.0.7/hooks")}`, headers: { prefer: "respond-async" }, issue: expect.stringMatching(/private/) },
    { query: `&callbackUrl=${encodeURIComponent("http://example.com/hooks")}`, headers: { prefer: "respond-async" }, issue: "http: is not https:" },
  ];
  for (const { query, headers, issue } of cases) {
    const answer = await convertRequest(docx, query, headers);
    expect(answer.status, query).toBe(400);
    expect(JSON.parse(answer.bytes.toString("utf8"))).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "query.callbackUrl", issue }] });
  }
});

it("a job's webhook reaches a receiver that was down for its first attempts: the sweeper retries, the reference verifier accepts it", async () => {
  await receiver.stop();
  const submitted = await submitJob(api, "/v1/sign", signBody("evt_webhook_down", { callbackUrl: receiver.url("/down") }), key);
  expect(submitted.status).toBe(202);
  const id = submitted.json.id as string;
  expect((await waitForJob(api, id, key)).status).toBe("succeeded");
  // Two failed attempts recorded, then the receiver comes back.
  await waitFor(async () => ((await readJob(api, id, key)).json.deliveries!.length >= 2 ? true : undefined));
  await receiver.start();
  const job = await waitFor(async () => {
    const read = (await readJob(api, id, key)).json;
    return (read.deliveries as Array<{ state: string }>).at(-1)?.state === "delivered" ? read : undefined;
  });
  const attempts = job.deliveries as Array<{ statusCode?: number; error?: string; webhookId: string }>;
  expect(attempts.slice(0, -1).every((attempt) => attempt.statusCode === undefined && /connection/.test(attempt.error ?? ""))).toBe(true);
  expect(attempts.at(-1)).toMatchObject({ statusCode: 200 });
  const received: Received[] = eventsFor(receiver, id);
  expect(received).toHaveLength(1);
  expect(received[0]!.headers["webhook-id"]).toBe(attempts[0]!.webhookId);
  const event = verifiedBy(secret, received[0]!) as { type: string; data: { id: string; result: JobView["result"] } };
  expect(event).toMatchObject({ type: "job.succeeded", data: { id, status: "succeeded" } });
  const answer = JSON.parse((await resultBytes(job)).toString("utf8")) as { document: { base64: string } };
  await expectSignedPdf(Buffer.from(answer.document.base64, "base64"), { input });
}, 60_000);

it("a job run again after its worker died (SQS's retry, a takeover) answers what the first run answered: one signing, not two", async () => {
  // The request as the job store keeps it: a finished job's is deleted, so the "died" job below gets it back.
  const store = jobDeps(api.container)!.store;
  const create = store.create.bind(store);
  const kept = new Map<string, Buffer>();
  store.create = async (job, request) => {
    kept.set(job.id, request);
    await create(job, request);
  };
  const submitted = await submitJob(api, "/v1/sign", signBody("evt_run_twice"), key);
  store.create = create;
  const id = submitted.json.id as string;
  const first = await waitForJob(api, id, key);
  expect(first.status).toBe("succeeded");
  const firstAnswer = await resultBytes(first);
  // The worker "died" after signing, before the job kept the answer: the job reads running again with its lease passed,
  // its request still there (small: in the item), and is queued for the pool.
  const { dynamodbEndpoint, tableName } = api.container.config.keys;
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: dynamodbEndpoint!, region: api.container.config.region }));
  const created = Date.parse(String(first.createdAt));
  await db.send(
    new UpdateCommand({
      TableName: tableName,
      Key: { pk: `JOB#${id}`, sk: "JOB" },
      UpdateExpression:
        "SET #status = :running, leaseExpiresAtMs = :past, #request = :request REMOVE finishedAtMs, body, bodyObject, statusCode, headers, encoding",
      ExpressionAttributeNames: { "#status": "status", "#request": "request" },
      ExpressionAttributeValues: { ":running": "running", ":past": 1, ":request": kept.get(id)! },
    }),
  );
  await db.send(new PutCommand({ TableName: tableName, Item: { pk: "JOBQ", sk: `${String(created).padStart(15, "0")}#${id}` } }));
  const second = await waitForJob(api, id, key, (job) => job.status === "succeeded" && job.finishedAt !== first.finishedAt);
  expect((await resultBytes(second)).equals(firstAnswer)).toBe(true);
}, 60_000);

it("a receiver that never answers holds no job worker: the next job (one worker) finishes while the webhook still waits", async () => {
  const hanging = await submitJob(api, "/v1/sign", signBody("evt_silent", { callbackUrl: silent.url("/silent") }), key);
  const hangingId = hanging.json.id as string;
  expect((await waitForJob(api, hangingId, key)).status).toBe("succeeded");
  // The first attempt is under way: the receiver holds it, unanswered.
  await waitFor(() => (silent.unanswered.some((body) => JSON.parse(body).data.id === hangingId) ? true : undefined));
  const started = Date.now();
  const next = await submitJob(api, "/v1/sign", signBody("evt_after_silent"), key);
  const done = await waitForJob(api, next.json.id as string, key);
  const ms = Date.now() - started;
  expect(done.status).toBe("succeeded");
  // Still within the attempt's time limit: nothing is recorded for it yet, the receiver holds it.
  expect(ms).toBeLessThan(WEBHOOK_TIMEOUT_MS);
  expect((await readJob(api, hangingId, key)).json.deliveries).toEqual([]);
}, 60_000);
