import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSafeWebhookSender } from "#adapters/safe-fetcher.ts";
import type { DeliveryAttempt } from "#domain/jobs/job-events.ts";
import { rotateSecret } from "#domain/webhooks/webhook-secrets.ts";
import { WebhookSweeper } from "#local/webhook-sweeper.ts";
import { finishAndSweep, finishedJob, startWebhookHarness, verifiedBy, type WebhookHarness } from "#test/helpers/webhook-harness.ts";
import { createWebhookEvents, webhookSecretDeps } from "#wiring/webhooks.ts";

// JobEvents on a real key table (dynalite) and a real HTTPS receiver on loopback, every delivery
// checked with the reference verifier (the standardwebhooks package). The retry schedule is 8
// attempts 150 ms apart here (the default is 8 over 27.6 h); tests wait for states, not for times.

let harness: WebhookHarness;
const ATTEMPTS = 8;

beforeAll(async () => {
  harness = await startWebhookHarness({
    SIGNET_WEBHOOK_RETRY_SCHEDULE: Array(ATTEMPTS - 1)
      .fill("150ms")
      .join(","),
    SIGNET_WEBHOOK_TIMEOUT_MS: "5000",
  });
});
afterAll(async () => harness?.close());

const newJob = () => `job_${randomUUID()}`;
const newOwner = () => `key_${randomUUID().replaceAll("-", "").slice(0, 16)}`;

/** sweepUntil sweeps (as the local timer does) until the job's last attempt says `state`; bounded by attempts made, not by time. */
async function sweepUntil(
  events: ReturnType<WebhookHarness["events"]>,
  jobId: string,
  state: DeliveryAttempt["state"],
  onAttempt?: (made: number) => Promise<void>,
) {
  for (let rounds = 0; rounds < 10_000; rounds++) {
    const attempts = await events.deliveriesOf(jobId);
    if (attempts.at(-1)?.state === state) return attempts;
    if (attempts.at(-1)?.state === "dead-lettered" || attempts.at(-1)?.state === "delivered") throw new Error(`ended ${attempts.at(-1)?.state}`);
    await onAttempt?.(attempts.length);
    await events.sweep();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error("never reached");
}

const receivedFor = (jobId: string) => harness.receiver.received.filter((received) => JSON.parse(received.body).data.id === jobId);

describe("webhooks: Standard Webhooks v1 deliveries of finished jobs", () => {
  it("a receiver that answers 200 gets one delivery, accepted by the reference verifier; the attempt is recorded", async () => {
    harness.receiver.mode = "ok";
    const [jobId, owner] = [newJob(), newOwner()];
    const events = harness.events();
    await finishAndSweep(events, finishedJob(jobId, owner, harness.receiver.url()));
    const [received] = receivedFor(jobId);
    const payload = verifiedBy(await harness.secretOf(owner), received!) as Record<string, any>;
    expect(payload).toMatchObject({ type: "job.succeeded", timestamp: "2026-11-27T12:00:00.000Z", data: { id: jobId, status: "succeeded" } });
    expect(payload.data.ownerKeyId).toBeUndefined();
    expect(received!.headers["webhook-id"]).toMatch(/^msg_/);
    const attempts = await events.deliveriesOf(jobId);
    expect(attempts).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 200, redelivery: false, state: "delivered", webhookId: received!.headers["webhook-id"] }),
    ]);
    expect(attempts[0]!.durationMs).toBeGreaterThanOrEqual(0);
    // Reported twice (a job worker retried): still one delivery.
    await finishAndSweep(events, finishedJob(jobId, owner, harness.receiver.url()));
    expect(receivedFor(jobId)).toHaveLength(1);
  });

  it("a receiver that refuses connections, then answers 503, gets the event afterwards: same webhook-id, every delivery verified", async () => {
    const [jobId, owner] = [newJob(), newOwner()];
    const events = harness.events();
    await harness.receiver.stop();
    await finishAndSweep(events, finishedJob(jobId, owner, harness.receiver.url(), "failed"));
    const attempts = await sweepUntil(events, jobId, "delivered", async (made) => {
      if (made === 2 && !harness.receiver.mode.startsWith("u")) {
        harness.receiver.mode = "unavailable";
        await harness.receiver.start();
      }
      if (made === 4) harness.receiver.mode = "ok";
    });
    expect(attempts.map((attempt) => attempt.statusCode ?? attempt.error?.replace(/\(.*\)/, "()"))).toEqual([
      "the connection failed ()",
      "the connection failed ()",
      503,
      503,
      200,
    ]);
    expect(attempts.slice(0, 4).every((attempt) => attempt.state === "pending" && attempt.nextAttemptAt !== undefined)).toBe(true);
    const secret = await harness.secretOf(owner);
    const received = receivedFor(jobId);
    expect(received.map((one) => one.answered)).toEqual([503, 503, 200]);
    for (const one of received) expect(verifiedBy(secret, one)).toMatchObject({ type: "job.failed", data: { error: { code: "INVALID_DOCUMENT" } } });
    expect(new Set(received.map((one) => one.headers["webhook-id"]))).toEqual(new Set([attempts[0]!.webhookId]));
  });

  it(`after ${ATTEMPTS} failed attempts the delivery is dead-lettered and no further attempt is made`, async () => {
    harness.receiver.mode = "unavailable";
    const [jobId, owner] = [newJob(), newOwner()];
    const events = harness.events();
    await finishAndSweep(events, finishedJob(jobId, owner, harness.receiver.url(), "expired"));
    const attempts = await sweepUntil(events, jobId, "dead-lettered");
    expect(attempts).toHaveLength(ATTEMPTS);
    expect(attempts.map((attempt) => attempt.statusCode)).toEqual(Array(ATTEMPTS).fill(503));
    expect(attempts.at(-1)).toMatchObject({ state: "dead-lettered" });
    expect(attempts.at(-1)!.nextAttemptAt).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await events.sweep();
    expect(receivedFor(jobId)).toHaveLength(ATTEMPTS);
    for (const one of receivedFor(jobId)) expect(verifiedBy(await harness.secretOf(owner), one)).toMatchObject({ type: "job.expired" });
    harness.receiver.mode = "ok";
  });

  it("redeliver sends again at once: a new attempt with the same webhook-id, and only for the job's owner", async () => {
    harness.receiver.mode = "ok";
    const [jobId, owner] = [newJob(), newOwner()];
    const events = harness.events();
    await finishAndSweep(events, finishedJob(jobId, owner, harness.receiver.url()));
    await events.redeliver(jobId, owner);
    const attempts = await events.deliveriesOf(jobId);
    expect(attempts.map((attempt) => [attempt.attempt, attempt.redelivery, attempt.statusCode, attempt.state])).toEqual([
      [1, false, 200, "delivered"],
      [2, true, 200, "delivered"],
    ]);
    const received = receivedFor(jobId);
    expect(received).toHaveLength(2);
    expect(received[1]!.headers["webhook-id"]).toBe(received[0]!.headers["webhook-id"]);
    for (const one of received) verifiedBy(await harness.secretOf(owner), one);
    await expect(events.redeliver(jobId, newOwner())).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(events.redeliver(newJob(), owner)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("during a rotation both secrets sign, and the reference verifier accepts the delivery with either", async () => {
    harness.receiver.mode = "ok";
    const [jobId, owner] = [newJob(), newOwner()];
    const before = await harness.secretOf(owner);
    const rotated = await rotateSecret(webhookSecretDeps(harness.config), owner);
    expect(rotated).toMatchObject({ previous: before });
    expect(rotated.current).not.toBe(before);
    await finishAndSweep(harness.events(), finishedJob(jobId, owner, harness.receiver.url()));
    const [received] = receivedFor(jobId);
    expect(received!.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verifiedBy(before, received!)).toMatchObject({ data: { id: jobId } });
    expect(verifiedBy(rotated.current, received!)).toMatchObject({ data: { id: jobId } });
    expect(() => verifiedBy(`whsec_${Buffer.alloc(32, 7).toString("base64")}`, received!)).toThrow(/signature/i);
  });

  it("a pending delivery resumes in another process: a new JobEvents and the local sweeper deliver it", async () => {
    const [jobId, owner] = [newJob(), newOwner()];
    harness.receiver.mode = "hang-up";
    await finishAndSweep(harness.events(), finishedJob(jobId, owner, harness.receiver.url()));
    expect(await harness.events().deliveriesOf(jobId)).toEqual([expect.objectContaining({ state: "pending", error: expect.stringMatching(/connection/) })]);
    // "Restart": nothing of the first JobEvents is used again, only the table.
    harness.receiver.mode = "ok";
    const sweeper = new WebhookSweeper(harness.events(), { intervalMs: 50, warn: () => undefined });
    sweeper.start();
    try {
      for (let polls = 0; receivedFor(jobId).length === 0 && polls < 2_000; polls++) await new Promise((resolve) => setTimeout(resolve, 25));
    } finally {
      await sweeper.stop();
    }
    expect(verifiedBy(await harness.secretOf(owner), receivedFor(jobId)[0]!)).toMatchObject({ data: { id: jobId } });
    expect((await harness.events().deliveriesOf(jobId)).at(-1)).toMatchObject({ attempt: 2, state: "delivered", statusCode: 200 });
  });

  it("two sweepers at once never make one attempt twice", async () => {
    harness.receiver.mode = "hang-up";
    const jobs = Array.from({ length: 12 }, newJob);
    const owner = newOwner();
    const first = harness.events();
    for (const jobId of jobs) await first.jobFinished(finishedJob(jobId, owner, harness.receiver.url()));
    // Every first attempt at once (hung up), as the woken sweeper makes them.
    await first.sweep(50);
    harness.receiver.mode = "ok";
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [a, b] = [harness.events(), harness.events()];
    await Promise.all([a.sweep(50), b.sweep(50), a.sweep(50)]);
    for (const jobId of jobs) expect(receivedFor(jobId)).toHaveLength(1);
  });
});

describe("webhooks: the callback address is checked when the webhook is sent", () => {
  // The production address policy (no allowAddresses); the receiver's CA is trusted, so only the address policy stands in the way.
  const production = () => createWebhookEvents(harness.config, { sender: createSafeWebhookSender({ timeoutMs: 5_000, ca: [harness.receiver.ca] }) });

  it.each([
    ["loopback", () => harness.receiver.url()],
    ["a name that resolves to loopback", () => harness.receiver.url().replace("127.0.0.1", "localhost")],
    ["IPv4-mapped IPv6 loopback", () => harness.receiver.url().replace("127.0.0.1", "[::ffff:127.0.0.1]")],
    ["the cloud metadata address", () => "https://169.254.169.254/latest/meta-data/"],
    ["a private network", () => "https://10.0.0.7/hooks"],
  ])("%s: refused, dead-lettered at once, nothing reaches the receiver", async (_name, url) => {
    const [jobId, owner] = [newJob(), newOwner()];
    const before = harness.receiver.received.length;
    harness.receiver.mode = "ok";
    const events = production();
    await finishAndSweep(events, finishedJob(jobId, owner, url()));
    const attempts = await events.deliveriesOf(jobId);
    expect(attempts).toEqual([expect.objectContaining({ attempt: 1, state: "dead-lettered", error: expect.stringMatching(/not allowed|private|not public/) })]);
    expect(attempts[0]!.statusCode).toBeUndefined();
    expect(harness.receiver.received.length).toBe(before);
  });

  it("a plain http callback is refused without a connection", async () => {
    const [jobId, owner] = [newJob(), newOwner()];
    const events = production();
    await finishAndSweep(events, finishedJob(jobId, owner, "http://example.com/hooks"));
    expect(await events.deliveriesOf(jobId)).toEqual([expect.objectContaining({ state: "dead-lettered", error: expect.stringMatching(/must use https/) })]);
  });
});
