/**
 * Webhook secrets and deliveries in the key table (DynamoDB on AWS, dynalite locally). The table
 * encrypts every item at rest (DynamoDB always does); a secret is never logged nor listed.
 *
 * Items (the table's schema: functions/adapters/dynamodb-key-store.ts):
 *   signing secrets  pk `WHSEC#<keyId>`        sk `WHSEC`
 *                    current (S, whsec_...), createdAt (N, epoch ms), previous? (S),
 *                    previousUntil? (N, epoch ms); no TTL (lives as long as the key)
 *   delivery         pk `WEBHOOK#<jobId>`      sk `DELIVERY`
 *                    ownerKeyId, url, webhookId, body (S), state (S: pending | delivered |
 *                    dead-lettered), nextAttemptAt? (N), scheduledAttempts (N), attempts (L of M),
 *                    leaseToken? (S), leaseUntil? (N), expiresAt (N, TTL: DELIVERY_KEPT_MS after creation)
 *   due entry        pk `WEBHOOK-DUE`          sk `<dueAt, 15 digits>#<jobId>`
 *                    jobId (S), dueAt (N), expiresAt (N, TTL): the sweepers' queue, read in order
 * A scheduled attempt's next entry is written before the delivery changes and the old one is
 * deleted after, so a crash between leaves a stale entry (dropped when read), never a lost one.
 */
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  type GetCommandOutput,
  PutCommand,
  QueryCommand,
  type QueryCommandOutput,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { withDeadline } from "#adapters/call-deadline.ts";
import { createDynamoClient, type DynamoKeyStoreOptions } from "#adapters/dynamodb-key-store.ts";
import type { DeliveryAttempt } from "#domain/jobs/job-events.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Delivery, DeliveryStore, DueDelivery, ScheduledOutcome, SecretStore, SigningSecrets } from "#domain/webhooks/webhook-store.ts";
import { DYNAMODB_CALL_BUDGET_MS } from "#functions/timeouts.ts";

/** DELIVERY_KEPT_MS is how long a delivery and its attempts are kept: 30 days (past the longest back-off). */
const DELIVERY_KEPT_MS = 30 * 24 * 60 * 60 * 1000;

type Item = Record<string, unknown>;

const DUE_PARTITION = "WEBHOOK-DUE";
const itemKeys = {
  secrets: (keyId: string) => ({ pk: `WHSEC#${keyId}`, sk: "WHSEC" }),
  delivery: (jobId: string) => ({ pk: `WEBHOOK#${jobId}`, sk: "DELIVERY" }),
  due: (dueAt: number, jobId: string) => ({ pk: DUE_PARTITION, sk: `${String(dueAt).padStart(15, "0")}#${jobId}` }),
};
const conditionFailed = (error: unknown) => (error as Error | undefined)?.name === "ConditionalCheckFailedException";
const ttl = (ms: number) => Math.ceil(ms / 1000);

function storeError(error: unknown): SignetError {
  if (error instanceof SignetError) return error;
  return new SignetError("SERVICE_UNAVAILABLE", "Webhook records cannot be read or written right now; retry in a moment.", { cause: error });
}

/** DynamoWebhookStore is the SecretStore and DeliveryStore of this file's header. */
class DynamoWebhookStore implements SecretStore, DeliveryStore {
  readonly #db: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(options: DynamoKeyStoreOptions) {
    this.#db = DynamoDBDocumentClient.from(createDynamoClient(options), { marshallOptions: { removeUndefinedValues: true } });
    this.#table = options.tableName;
  }

  async #send<O>(command: GetCommand | PutCommand | UpdateCommand | DeleteCommand | QueryCommand): Promise<O> {
    const send = this.#db.send.bind(this.#db) as (command: unknown, options: { abortSignal: AbortSignal }) => Promise<O>;
    try {
      return await withDeadline(DYNAMODB_CALL_BUDGET_MS, (abortSignal) => send(command, { abortSignal }));
    } catch (error) {
      if (conditionFailed(error)) throw error;
      throw storeError(error);
    }
  }

  /** conditional: true when the write's condition held, false when it did not. */
  async #conditional(command: PutCommand | UpdateCommand | DeleteCommand): Promise<boolean> {
    try {
      await this.#send(command);
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  async #get(key: { pk: string; sk: string }): Promise<Item | undefined> {
    return (await this.#send<GetCommandOutput>(new GetCommand({ TableName: this.#table, Key: key, ConsistentRead: true }))).Item;
  }

  async secretsOf(keyId: string): Promise<SigningSecrets | undefined> {
    const item = await this.#get(itemKeys.secrets(keyId));
    if (!item) return undefined;
    return {
      current: String(item.current),
      createdAt: Number(item.createdAt),
      ...(item.previous === undefined ? {} : { previous: String(item.previous), previousUntil: Number(item.previousUntil) }),
    };
  }

  async putSecrets(keyId: string, next: SigningSecrets, expectedCurrent: string | undefined): Promise<boolean> {
    return this.#conditional(
      new PutCommand({
        TableName: this.#table,
        Item: { ...itemKeys.secrets(keyId), ...next },
        ConditionExpression: expectedCurrent === undefined ? "attribute_not_exists(pk)" : "#current = :expected",
        ...(expectedCurrent === undefined
          ? {}
          : { ExpressionAttributeNames: { "#current": "current" }, ExpressionAttributeValues: { ":expected": expectedCurrent } }),
      }),
    );
  }

  async createDelivery(delivery: Delivery): Promise<boolean> {
    const dueAt = delivery.nextAttemptAt ?? 0;
    const expiresAt = ttl(dueAt + DELIVERY_KEPT_MS);
    await this.#putDue(dueAt, delivery.jobId);
    const created = await this.#conditional(
      new PutCommand({
        TableName: this.#table,
        Item: { ...itemKeys.delivery(delivery.jobId), ...delivery, expiresAt },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
    if (!created) await this.#dropDue({ jobId: delivery.jobId, dueAt });
    return created;
  }

  async deliveryOf(jobId: string): Promise<Delivery | undefined> {
    const item = await this.#get(itemKeys.delivery(jobId));
    return item ? deliveryOf(item) : undefined;
  }

  async dueDeliveries(now: number, limit: number): Promise<DueDelivery[]> {
    const answer = await this.#send<QueryCommandOutput>(
      new QueryCommand({
        TableName: this.#table,
        KeyConditionExpression: "pk = :due AND sk <= :upper",
        ExpressionAttributeValues: { ":due": DUE_PARTITION, ":upper": `${String(now).padStart(15, "0")}#\uffff` },
        Limit: limit,
        ConsistentRead: true,
      }),
    );
    return (answer.Items ?? []).map((item) => ({ jobId: String(item.jobId), dueAt: Number(item.dueAt) }));
  }

  async claim(due: DueDelivery, lease: { now: number; until: number; token: string }): Promise<Delivery | undefined> {
    try {
      const answer = await this.#send<{ Attributes?: Item }>(
        new UpdateCommand({
          TableName: this.#table,
          Key: itemKeys.delivery(due.jobId),
          UpdateExpression: "SET leaseToken = :token, leaseUntil = :until",
          ConditionExpression: "#state = :pending AND nextAttemptAt = :dueAt AND (attribute_not_exists(leaseUntil) OR leaseUntil <= :now)",
          ExpressionAttributeNames: { "#state": "state" },
          ExpressionAttributeValues: { ":token": lease.token, ":until": lease.until, ":pending": "pending", ":dueAt": due.dueAt, ":now": lease.now },
          ReturnValues: "ALL_NEW",
        }),
      );
      return answer.Attributes ? deliveryOf(answer.Attributes) : undefined;
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
    // Not claimable: held by another sweeper (its entry stays), or the entry is stale (it goes).
    const current = await this.deliveryOf(due.jobId);
    if (current?.state !== "pending" || current.nextAttemptAt !== due.dueAt) await this.#dropDue(due);
    return undefined;
  }

  async finishScheduled(jobId: string, dueAt: number, token: string, outcome: ScheduledOutcome): Promise<void> {
    if (outcome.nextAttemptAt !== undefined) await this.#putDue(outcome.nextAttemptAt, jobId);
    const settled = await this.#conditional(
      new UpdateCommand({
        TableName: this.#table,
        Key: itemKeys.delivery(jobId),
        UpdateExpression: `SET #state = :state, scheduledAttempts = :made, attempts = list_append(attempts, :attempt)${outcome.nextAttemptAt === undefined ? " REMOVE nextAttemptAt, leaseToken, leaseUntil" : ", nextAttemptAt = :next REMOVE leaseToken, leaseUntil"}`,
        ConditionExpression: "leaseToken = :token AND #state = :pending",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: {
          ":state": outcome.state,
          ":made": outcome.scheduledAttempts,
          ":attempt": [outcome.attempt],
          ":token": token,
          ":pending": "pending",
          ...(outcome.nextAttemptAt === undefined ? {} : { ":next": outcome.nextAttemptAt }),
        },
      }),
    );
    // A redelivery settled it meanwhile (or the lease passed to another sweeper): the attempt is still recorded.
    if (!settled) await this.#append(jobId, outcome.attempt);
    await this.#dropDue({ jobId, dueAt });
  }

  async addRedelivery(jobId: string, attempt: DeliveryAttempt): Promise<void> {
    if (attempt.state !== "delivered") return this.#append(jobId, attempt);
    await this.#send(
      new UpdateCommand({
        TableName: this.#table,
        Key: itemKeys.delivery(jobId),
        UpdateExpression: "SET #state = :delivered, attempts = list_append(attempts, :attempt) REMOVE nextAttemptAt",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":delivered": "delivered", ":attempt": [attempt] },
      }),
    );
  }

  async #append(jobId: string, attempt: DeliveryAttempt): Promise<void> {
    await this.#send(
      new UpdateCommand({
        TableName: this.#table,
        Key: itemKeys.delivery(jobId),
        UpdateExpression: "SET attempts = list_append(attempts, :attempt)",
        ExpressionAttributeValues: { ":attempt": [attempt] },
      }),
    );
  }

  async #putDue(dueAt: number, jobId: string): Promise<void> {
    await this.#send(
      new PutCommand({ TableName: this.#table, Item: { ...itemKeys.due(dueAt, jobId), jobId, dueAt, expiresAt: ttl(dueAt + DELIVERY_KEPT_MS) } }),
    );
  }

  async #dropDue(due: DueDelivery): Promise<void> {
    await this.#send(new DeleteCommand({ TableName: this.#table, Key: itemKeys.due(due.dueAt, due.jobId) }));
  }
}

/** deliveryOf is a delivery item as the domain sees it (lease fields left out). */
function deliveryOf(item: Item): Delivery {
  return {
    jobId: String(item.jobId),
    ownerKeyId: String(item.ownerKeyId),
    url: String(item.url),
    webhookId: String(item.webhookId),
    body: String(item.body),
    state: item.state as Delivery["state"],
    ...(item.nextAttemptAt === undefined ? {} : { nextAttemptAt: Number(item.nextAttemptAt) }),
    scheduledAttempts: Number(item.scheduledAttempts),
    attempts: (item.attempts as DeliveryAttempt[] | undefined) ?? [],
  };
}

/** createWebhookStore is the webhook secrets and deliveries on the key table (this file's header). */
export function createWebhookStore(options: DynamoKeyStoreOptions): SecretStore & DeliveryStore {
  return new DynamoWebhookStore(options);
}
