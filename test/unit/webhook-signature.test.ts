import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { jobEvent } from "#domain/webhooks/event-payload.ts";
import { nextAttemptAt, parseSchedule } from "#domain/webhooks/retry-schedule.ts";
import { newSigningSecret, newWebhookId, signatureOf, webhookHeaders } from "#domain/webhooks/standard-webhooks.ts";
import { ROTATION_OVERLAP_MS, signingSecrets } from "#domain/webhooks/webhook-secrets.ts";

/** workedExample is the "worked example" block of docs/api.md's Webhooks section, field by field. */
function workedExample(): Record<string, string> {
  const doc = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
  const block = /## Webhooks[\s\S]*?```text\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error("docs/api.md has no worked example under ## Webhooks");
  const fields = block.split("\n").map((line) => /^([a-z -]+?):\s+(.*)$/.exec(line));
  return Object.fromEntries(fields.filter((match) => match !== null).map((match) => [match[1], match[2]]));
}

describe("webhook signatures (Standard Webhooks v1)", () => {
  it("docs/api.md's worked example: the signature in the text is what Signet and the reference library compute from the text", () => {
    const example = workedExample();
    const message = { id: example["webhook-id"]!, timestamp: Number(example["webhook-timestamp"]), body: example.body! };
    expect(signatureOf(example.secret!, message)).toBe(example["webhook-signature"]);
    expect(new Webhook(example.secret!).sign(message.id, new Date(message.timestamp * 1000), message.body)).toBe(example["webhook-signature"]);
    // The body is the event of a finished job as Signet writes it, byte for byte.
    const data = JSON.parse(message.body).data;
    expect(JSON.stringify(jobEvent({ ...data, ownerKeyId: "key_any", callbackUrl: "https://example.com/" }))).toBe(message.body);
  });

  it("the specification's own test vector", () => {
    const message = { id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1614265330, body: '{"test": 2432232314}' };
    expect(signatureOf("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", message)).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("headers with two secrets (a rotation) are accepted by the reference verifier with either secret, and refused with a third", () => {
    const [current, previous, other] = [newSigningSecret(), newSigningSecret(), newSigningSecret()];
    const message = { id: newWebhookId(), timestamp: Math.floor(Date.now() / 1000), body: JSON.stringify({ type: "job.failed" }) };
    const headers = webhookHeaders([current, previous], message);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(current).verify(message.body, headers)).toEqual({ type: "job.failed" });
    expect(new Webhook(previous).verify(message.body, headers)).toEqual({ type: "job.failed" });
    expect(() => new Webhook(other).verify(message.body, headers)).toThrow(/signature/i);
  });

  it("a replaced secret signs until the overlap ends, then only the current one", () => {
    const secrets = { current: "whsec_new", createdAt: 0, previous: "whsec_old", previousUntil: ROTATION_OVERLAP_MS };
    expect(signingSecrets(secrets, ROTATION_OVERLAP_MS - 1)).toEqual(["whsec_new", "whsec_old"]);
    expect(signingSecrets(secrets, ROTATION_OVERLAP_MS)).toEqual(["whsec_new"]);
    expect(ROTATION_OVERLAP_MS).toBe(24 * 3_600_000);
  });

  it("new secrets are whsec_ and 32 random bytes; ids are msg_ and unique", () => {
    const secret = newSigningSecret();
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
    expect(newWebhookId()).not.toBe(newWebhookId());
  });
});

describe("webhook retry schedule", () => {
  it.each([
    ["5s,5m,30m,2h", [5_000, 300_000, 1_800_000, 7_200_000]],
    ["150ms, 1d", [150, 86_400_000]],
  ])("%s reads as %j", (text, delays) => {
    expect(parseSchedule(text)).toEqual(delays);
  });

  it.each(["", "5", "0s", "-5s", "5x", "5s,,5m"])("%j is refused", (text) => {
    expect(() => parseSchedule(text)).toThrow(/positive duration/);
  });

  it("the default is at least 8 attempts over at least 24 hours, then nothing", () => {
    const schedule = loadConfig({}).webhooks.retrySchedule;
    expect(schedule.length + 1).toBeGreaterThanOrEqual(8);
    let at = 0;
    for (let made = 1; made <= schedule.length; made++) at = nextAttemptAt(schedule, made, at)!;
    expect(at).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(nextAttemptAt(schedule, schedule.length + 1, at)).toBeUndefined();
  });

  it("a bad SIGNET_WEBHOOK_RETRY_SCHEDULE stops the start, naming itself", () => {
    expect(() => loadConfig({ SIGNET_WEBHOOK_RETRY_SCHEDULE: "5s,soon" }).webhooks).toThrow(/SIGNET_WEBHOOK_RETRY_SCHEDULE.*"soon"/);
  });
});
