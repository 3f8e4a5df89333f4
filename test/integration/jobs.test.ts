import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readJob, submitJob, waitForJob } from "#test/helpers/jobs.ts";
import { makeLargePdf } from "#test/helpers/large-docs.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { qpdfEncrypt } from "#test/helpers/pdf-passwords.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";
import { jobDeps } from "#wiring/jobs.ts";

// Prefer: respond-async through the real local server: dynalite holds the jobs, the S3 stand-in
// their requests and results, the in-process pool runs them through the routes' own handlers.

let api: LocalApi;
let key: string;
let otherKey: string;
let input: Buffer;

const signBody = (eventId: string) => ({
  document: { base64: input.toString("base64") },
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
  eventId,
});

beforeAll(async () => {
  // The public callback below is a real address this machine may not reach: its webhook attempt
  // (made when the job ends) gives up after 1 s instead of holding a job worker for 15 s.
  api = await startLocalApi("jobs", {
    SIGNET_TABLE: "signet-jobs",
    SIGNET_CONVERSION_MODE: "oneshot",
    SIGNET_KEY_RATE_LIMIT: "100000",
    SIGNET_WEBHOOK_TIMEOUT_MS: "1000",
  });
  key = await obtainKey(api, "jobs");
  otherKey = await obtainKey(api, "jobs-other");
  input = await makePdf(1);
}, 120_000);

afterAll(async () => {
  await api?.close();
});

describe("Prefer: respond-async", () => {
  it("sign answers 202 with the job, Location and Retry-After; the job succeeds with the signed PDF behind a presigned URL", async () => {
    const submitted = await submitJob(api, "/v1/sign", signBody("evt_job_1"), key);
    expect(submitted.status).toBe(202);
    expect(submitted.json).toMatchObject({ status: "queued", route: "sign" });
    expect(submitted.json.id).toMatch(/^job_[A-Za-z0-9_-]{22}$/);
    expect(submitted.headers.get("location")).toBe(`/v1/jobs/${submitted.json.id}`);
    expect(Number(submitted.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(submitted.headers.get("preference-applied")).toBe("respond-async");

    const job = await waitForJob(api, submitted.json.id, key);
    expect(job.status).toBe("succeeded");
    expect(job.deliveries).toEqual([]);
    expect(job.result).toMatchObject({ statusCode: 200, contentType: expect.stringMatching(/^application\/json/) });
    const answer = (await (await fetch(job.result!.url!)).json()) as { document: { base64: string } };
    await expectSignedPdf(Buffer.from(answer.document.base64, "base64"), { input });
  }, 60_000);

  it("a browser may ask for a job: the preflight allows Prefer, and the 202's Location and Preference-Applied are readable", async () => {
    const preflight = await fetch(`${api.url}/v1/sign`, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,prefer",
      },
    });
    expect(preflight.headers.get("access-control-allow-headers")?.split(",")).toContain("Prefer");
    const submitted = await submitJob(api, "/v1/sign", signBody("evt_job_browser"), key);
    const exposed = submitted.headers.get("access-control-expose-headers")?.split(",") ?? [];
    expect(exposed).toEqual(expect.arrayContaining(["Location", "Preference-Applied", "Retry-After"]));
    await waitForJob(api, submitted.json.id, key);
  }, 60_000);

  it("another key's job and an unknown id are the same 404", async () => {
    const submitted = await submitJob(api, "/v1/sign", signBody("evt_job_2"), key);
    const theirs = await readJob(api, submitted.json.id, otherKey);
    const unknown = await readJob(api, "job_AAAAAAAAAAAAAAAAAAAAAA", otherKey);
    expect(theirs.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(theirs.json.code).toBe("NOT_FOUND");
    expect(theirs.json.message).toBe(unknown.json.message);
    // Nor can they ask for its webhook.
    const redeliver = await fetch(`${api.url}/v1/jobs/${submitted.json.id}/redeliver`, { method: "POST", headers: { authorization: `Bearer ${otherKey}` } });
    expect(redeliver.status).toBe(404);
    await waitForJob(api, submitted.json.id, key);
  }, 60_000);

  it("without the header the route answers as before: 200 with the document, no job", async () => {
    const answer = await api.postJson("/v1/sign", signBody("evt_job_sync"), key);
    expect(answer.status).toBe(200);
    expect(answer.json.document.contentType).toBe("application/pdf");
  }, 60_000);

  it("a job that fails carries the route's error in the usual layout", async () => {
    const submitted = await submitJob(
      api,
      "/v1/sign",
      { ...signBody("evt_job_bad"), document: { base64: Buffer.from("not a pdf at all").toString("base64") } },
      key,
    );
    expect(submitted.status).toBe(202);
    const job = await waitForJob(api, submitted.json.id, key);
    expect(job.status).toBe("failed");
    expect(job.error).toMatchObject({ code: "INVALID_DOCUMENT", error: "Unprocessable Entity", message: expect.any(String), requestId: expect.any(String) });
    expect(job.result).toBeUndefined();
  }, 60_000);

  it("Idempotency-Key with respond-async: the same key gives the same job, replayed", async () => {
    const idempotencyKey = randomUUID();
    const first = await submitJob(api, "/v1/sign", signBody("evt_job_idem"), key, { "idempotency-key": idempotencyKey });
    const again = await submitJob(api, "/v1/sign", signBody("evt_job_idem"), key, { "idempotency-key": idempotencyKey });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.json.id).toBe(first.json.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect((await waitForJob(api, first.json.id, key)).status).toBe("succeeded");
  }, 60_000);

  it("a job that ran keeps no password: its stored request is gone, succeeded or failed; the job shows none; a replay still answers", async () => {
    const store = jobDeps(api.container)!.store;
    const kept = (id: string) =>
      store.requestOf(id).then(
        () => true,
        () => false,
      );
    const password = "job-password-5fd1c2";
    // Over 256 KB of base64: this request is kept in the bucket; the failing one below in the job's item.
    const encrypted = await qpdfEncrypt(await makeLargePdf(300 * 1024), password, "job-owner-9a7e", "aes-256");
    const good = await submitJob(api, "/v1/sign", { ...signBody("evt_job_pw"), document: { base64: encrypted.toString("base64"), password } }, key);
    const idempotencyKey = randomUUID();
    const wrongBody = {
      ...signBody("evt_job_pw_bad"),
      document: { base64: (await qpdfEncrypt(input, "other", "other-owner", "aes-256")).toString("base64"), password },
    };
    const wrong = await submitJob(api, "/v1/sign", wrongBody, key, { "idempotency-key": idempotencyKey });

    const succeeded = await waitForJob(api, good.json.id, key);
    expect(succeeded.status).toBe("succeeded");
    const failed = await waitForJob(api, wrong.json.id, key);
    expect(failed).toMatchObject({ status: "failed", error: { code: "WRONG_PASSWORD" } });
    for (const job of [succeeded, failed]) {
      // The request (the body as base64, password included) is gone from the item, and from the bucket just after the
      // record says the job ended: wait for that (the test's time-out bounds the wait; without the deletion it never comes).
      while (await kept(job.id)) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(JSON.stringify(await store.get(job.id)), job.status).not.toContain(password);
      expect(JSON.stringify((await readJob(api, job.id, key)).json), job.status).not.toContain(password);
    }
    const replay = await submitJob(api, "/v1/sign", wrongBody, key, { "idempotency-key": idempotencyKey });
    expect(replay.status).toBe(202);
    expect(replay.json.id).toBe(wrong.json.id);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
  }, 90_000);

  it("verify (a route without the authorizer) runs as a job of the key it names; its small report comes inline", async () => {
    const signed = await api.postJson("/v1/sign", signBody("evt_job_verify"), key);
    const body = { document: { base64: signed.json.document.base64 } };
    const anonymous = await submitJob(api, "/v1/verify", body, undefined);
    expect(anonymous.status).toBe(401);
    const submitted = await submitJob(api, "/v1/verify", body, key);
    expect(submitted.status).toBe(202);
    const job = await waitForJob(api, submitted.json.id, key);
    expect(job.error).toBeUndefined();
    expect(job.status).toBe("succeeded");
    expect(job.result?.body).toMatchObject({ valid: true, trusted: true });
  }, 60_000);

  it("a callbackUrl must be HTTPS to a public address (checked at submit); without the preference it is an unknown member as before", async () => {
    for (const callbackUrl of [
      "https://127.0.0.1/hook",
      "https://[::1]/hook",
      "https://169.254.169.254/latest",
      "http://example.com/hook",
      "https://localhost/hook",
    ]) {
      const refused = await submitJob(api, "/v1/sign", { ...signBody("evt_cb"), callbackUrl }, key);
      expect(refused.status, callbackUrl).toBe(400);
      expect(refused.json.details, callbackUrl).toEqual([{ field: "body.callbackUrl", issue: expect.any(String) }]);
    }
    const sync = await api.postJson("/v1/sign", { ...signBody("evt_cb"), callbackUrl: "https://example.com/hook" }, key);
    expect(sync.status).toBe(400);
    expect(sync.json.code).toBe("VALIDATION_ERROR");
  }, 60_000);

  it("a job with a public callbackUrl keeps it; redeliver of a job without one is 404", async () => {
    const submitted = await submitJob(api, "/v1/sign", { ...signBody("evt_cb_ok"), callbackUrl: "https://93.184.215.14/hook" }, key);
    expect(submitted.status).toBe(202);
    expect(submitted.json.callbackUrl).toBe("https://93.184.215.14/hook");
    const plain = await submitJob(api, "/v1/sign", signBody("evt_no_cb"), key);
    const redeliver = await fetch(`${api.url}/v1/jobs/${plain.json.id}/redeliver`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
    expect(redeliver.status).toBe(404);
    const withCallback = await fetch(`${api.url}/v1/jobs/${submitted.json.id}/redeliver`, { method: "POST", headers: { authorization: `Bearer ${key}` } });
    expect(withCallback.status).toBe(202);
    await waitForJob(api, submitted.json.id, key);
    await waitForJob(api, plain.json.id, key);
  }, 60_000);
});
