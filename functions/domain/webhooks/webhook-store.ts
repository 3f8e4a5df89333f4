import type { DeliveryAttempt } from "#domain/jobs/job-events.ts";

/** SigningSecrets are an API key's webhook secrets: the current one and, during a rotation, the one it replaced. */
export interface SigningSecrets {
  current: string;
  /** When the current secret was made (epoch ms). */
  createdAt: number;
  /** The replaced secret, still signed with until previousUntil. */
  previous?: string;
  /** Epoch ms; after it only the current secret signs. */
  previousUntil?: number;
}

/** SecretStore keeps each API key's signing secrets beside the key (the key table). */
export interface SecretStore {
  secretsOf(keyId: string): Promise<SigningSecrets | undefined>;
  /** putSecrets writes `next` when the stored current secret is `expectedCurrent` (undefined: none yet); false when it was not. */
  putSecrets(keyId: string, next: SigningSecrets, expectedCurrent: string | undefined): Promise<boolean>;
}

/** Delivery is one job's webhook: where it goes, its frozen body and id, and every attempt so far. */
export interface Delivery {
  jobId: string;
  ownerKeyId: string;
  url: string;
  webhookId: string;
  /** The exact body every attempt sends. */
  body: string;
  state: DeliveryAttempt["state"];
  /** Epoch ms of the next scheduled attempt, while pending. */
  nextAttemptAt?: number;
  /** Scheduled attempts made (redeliveries not counted): the back-off's position. */
  scheduledAttempts: number;
  attempts: DeliveryAttempt[];
}

/** DueDelivery names a delivery whose scheduled attempt is due. */
export interface DueDelivery {
  jobId: string;
  dueAt: number;
}

/** ScheduledOutcome is a scheduled attempt's result: the attempt and the delivery's state after it. */
export interface ScheduledOutcome {
  attempt: DeliveryAttempt;
  state: DeliveryAttempt["state"];
  nextAttemptAt?: number;
  scheduledAttempts: number;
}

/**
 * DeliveryStore keeps deliveries durably and finds the due ones. A scheduled attempt is made by
 * whoever claims it (a lease), so two sweepers never send the same attempt twice.
 */
export interface DeliveryStore {
  /** createDelivery stores a new delivery due at once; false when the job already has one. */
  createDelivery(delivery: Delivery): Promise<boolean>;
  deliveryOf(jobId: string): Promise<Delivery | undefined>;
  /** dueDeliveries lists up to `limit` deliveries due at `now`, oldest first. */
  dueDeliveries(now: number, limit: number): Promise<DueDelivery[]>;
  /** claim leases a pending delivery whose attempt due at `dueAt` nobody holds; undefined (and the stale entry dropped) otherwise. */
  claim(due: DueDelivery, lease: { now: number; until: number; token: string }): Promise<Delivery | undefined>;
  /** finishScheduled records a claimed attempt and the next state, releasing the lease. */
  finishScheduled(jobId: string, dueAt: number, token: string, outcome: ScheduledOutcome): Promise<void>;
  /** addRedelivery records an attempt made on request; a delivered one settles the delivery. */
  addRedelivery(jobId: string, attempt: DeliveryAttempt): Promise<void>;
}
