// Drives JobEvents (the webhook side of async jobs) directly with a real store: dynalite from the
// local stand-ins, the key table, a Config read from an environment given here (process.env is not
// touched), the safe fetcher's webhook sender allowed to reach an HTTPS receiver on loopback.
// Beside the job-to-webhook path through the local server (jobs-webhooks.test.ts),
// tests call jobFinished / deliveriesOf / redeliver / sweep here as the job worker would.
import { Webhook } from "standardwebhooks";
import { ensureKeyTable } from "#adapters/dynamodb-key-store.ts";
import { createSafeWebhookSender } from "#adapters/safe-fetcher.ts";
import { loadConfig, type Config } from "#config";
import type { FinishedJob } from "#domain/jobs/job-events.ts";
import type { WebhookDeliveries } from "#domain/webhooks/webhook-deliveries.ts";
import { secretsFor } from "#domain/webhooks/webhook-secrets.ts";
import { startStandIns, type StandIns } from "#local/stand-ins.ts";
import { startWebhookReceiver, type Received, type WebhookReceiver } from "#test/helpers/webhook-receiver.ts";
import { createWebhookEvents, webhookSecretDeps } from "#wiring/webhooks.ts";

/** WebhookHarness is a key table, a receiver and a way to make JobEvents on them. */
export interface WebhookHarness {
  config: Config;
  receiver: WebhookReceiver;
  standIns: StandIns;
  /** events makes a JobEvents as one process would (call again for "another process" on the same table). */
  events(): WebhookDeliveries;
  /** secretOf is the owner's current secret as GET /v1/webhooks/secret gives it (made on first read). */
  secretOf(keyId: string): Promise<string>;
  close(): Promise<void>;
}

/** startWebhookHarness starts dynalite (and the other stand-ins), the key table and an HTTPS receiver; `env` adds settings (a short SIGNET_WEBHOOK_RETRY_SCHEDULE). */
export async function startWebhookHarness(env: Record<string, string> = {}): Promise<WebhookHarness> {
  const standIns = await startStandIns({ sesPort: 0, s3Port: 0 });
  const config = loadConfig({ SIGNET_TABLE: `signet-webhooks-${process.pid}`, ...standIns.env, ...env });
  await ensureKeyTable({ tableName: config.keys.tableName, region: config.region, endpoint: config.keys.dynamodbEndpoint! });
  const receiver = await startWebhookReceiver();
  const sender = () => createSafeWebhookSender({ allowAddresses: ["127.0.0.1"], ca: [receiver.ca], timeoutMs: config.webhooks.timeoutMs });
  return {
    config,
    receiver,
    standIns,
    events: () => createWebhookEvents(config, { sender: sender() }),
    secretOf: async (keyId) => (await secretsFor(webhookSecretDeps(config), keyId)).current,
    close: async () => {
      await receiver.close();
      await standIns.close();
    },
  };
}

/** finishedJob is a finished job of `ownerKeyId` whose callback is `url`. */
export function finishedJob(id: string, ownerKeyId: string, url: string, status: FinishedJob["status"] = "succeeded"): FinishedJob {
  return {
    id,
    ownerKeyId,
    callbackUrl: url,
    status,
    finishedAt: "2026-11-27T12:00:00.000Z",
    ...(status === "succeeded" ? { result: { url: `https://results.example/${id}.pdf`, contentType: "application/pdf" } } : {}),
    ...(status === "failed" ? { error: { code: "INVALID_DOCUMENT", message: "The document is not a PDF." } } : {}),
  };
}

/** verifiedBy checks a received webhook with the reference verifier (the standardwebhooks package); throws when it refuses. */
export function verifiedBy(secret: string, received: Received): unknown {
  return new Webhook(secret).verify(received.body, received.headers);
}

/**
 * finishAndSweep reports a finished job and makes the due attempts, as the worker and the woken
 * sweeper do between them (the first attempt is the sweeper's, not jobFinished's).
 */
export async function finishAndSweep(events: WebhookDeliveries, job: FinishedJob): Promise<void> {
  await events.jobFinished(job);
  await events.sweep(100);
}
