/**
 * DynamoDB key store: one table, conditional single-item writes, and one transaction
 * (TransactWriteItems) where two items must change together: minting a key marks its code used.
 * Locally dynalite lacks transactions; local/dynalite-transactions.ts adds them in front of it.
 *
 * Table schema (the CDK stack defines the same):
 *   partition key `pk` (S), sort key `sk` (S), billing PAY_PER_REQUEST,
 *   TTL attribute `expiresAt` (N, epoch SECONDS). TTL deletion is late, so code always checks
 *   validity itself (`expiresAtMs`).
 * Items:
 *   API key       pk `KEY#<sha256 hex of the key>`  sk `KEY`
 *                 keyId (S, public id), email (S), owner (S, lookup form), last4 (S),
 *                 createdAt, lastUsedAt, revokedAt? (S, ISO), revokeTokenHash? (S); no TTL;
 *                 kept after revocation (revokedAt set) so a revoked key is told apart
 *   key listing   pk `OWNER#<lower-case address>`   sk `KEY#<keyId>`
 *                 keyHash (S); deleted when the key is revoked
 *   revoke link   pk `REVOKE#<sha256 hex of token>` sk `REVOKE`
 *                 keyHash (S), expiresAtMs (N), expiresAt (N, TTL); deleted when used or
 *                 when the key is revoked otherwise
 *   e-mail code   pk `CODE#<lower-case address>`    sk `CODE`
 *                 codeId, salt, codeHash (S), wrongTries (N, from the requester's network),
 *                 otherTries? (N, from all other networks), requester? (S, ip bucket of the
 *                 register call), createdAt, expiresAtMs (N, epoch ms),
 *                 consumedAt? (N), keyId? (S, the key it minted), expiresAt (N, TTL)
 *   key rate      pk `KEYRATE#<keyId>`                sk `WINDOW#<epoch ms of the minute>`
 *                 requests (N), expiresAt (N, TTL): the per-key request limit's counter
 *   rate slot     pk `RATE#<bucket>`                sk `SLOT#<nnn>`
 *                 usedAt (N, epoch ms), expiresAt (N, TTL); bucket is `ip#<IPv4>` or
 *                 `ip#<IPv6 /64 network>`, `email#<mailbox>` (15-minute rule) or
 *                 `email-day#<mailbox>` (24-hour rule), `verify-ip#<IPv4 or /64>` (codes that
 *                 did not work, per source); mailbox is the address without a +tag
 */
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceInUseException, ResourceNotFoundException } from "@aws-sdk/client-dynamodb";
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { config } from "#config";
import { withDeadline } from "#adapters/call-deadline.ts";
import { DYNAMODB_CALL_BUDGET_MS, DYNAMODB_CLIENT_LIMITS, TOUCH_BUDGET_MS } from "#functions/timeouts.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { ApiKeyRecord, KeyStore } from "#domain/keys/key-store.ts";
import { CODE_MAX_OTHER_TRIES, CODE_MAX_WRONG_TRIES, type CodeRecord } from "#domain/keys/verification-code.ts";

/** DynamoKeyStoreOptions say which table and which endpoint (a stand-in locally). */
export interface DynamoKeyStoreOptions {
  tableName: string;
  endpoint?: string;
  region: string;
}

const seconds = (ms: number) => Math.ceil(ms / 1000);
const slotKey = (slot: number) => `SLOT#${String(slot).padStart(3, "0")}`;

function isConditionFailure(error: unknown): boolean {
  return (error as Error | undefined)?.name === "ConditionalCheckFailedException";
}

/** toStoreError turns an SDK failure into SERVICE_UNAVAILABLE; programming errors stay as they are. */
function toStoreError(error: unknown): unknown {
  const name = (error as Error | undefined)?.name;
  if (name === "ValidationException" || name === "SerializationException") return error;
  return new SignetError("SERVICE_UNAVAILABLE", "The key store cannot be reached right now; retry in a moment.", { cause: error });
}

function createClient(options: DynamoKeyStoreOptions): DynamoDBClient {
  return new DynamoDBClient({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    // Fail within a few seconds when the store is down, so the caller gets a 503, not a gateway time-out.
    // throwOnRequestTimeout: without it the SDK only logs a warning when requestTimeout passes.
    maxAttempts: DYNAMODB_CLIENT_LIMITS.maxAttempts,
    requestHandler: {
      connectionTimeout: DYNAMODB_CLIENT_LIMITS.connectionTimeoutMs,
      requestTimeout: DYNAMODB_CLIENT_LIMITS.requestTimeoutMs,
      throwOnRequestTimeout: true,
    },
  });
}

/** codeItem is the table item of a code record (consumedAt kept, so a restored record is exact). */
function codeItem(record: CodeRecord): Record<string, unknown> {
  return {
    pk: `CODE#${record.address}`,
    sk: "CODE",
    codeId: record.codeId,
    salt: record.salt,
    codeHash: record.codeHash,
    wrongTries: record.wrongTries,
    otherTries: record.otherTries,
    requester: record.requester,
    createdAt: record.createdAt,
    expiresAtMs: record.expiresAt,
    expiresAt: seconds(record.expiresAt),
    consumedAt: record.consumedAt,
  };
}

function codeRecordOf(address: string, item: Record<string, unknown>): CodeRecord {
  const record: CodeRecord = {
    address,
    codeId: String(item.codeId),
    salt: String(item.salt),
    codeHash: String(item.codeHash),
    wrongTries: Number(item.wrongTries),
    createdAt: Number(item.createdAt),
    expiresAt: Number(item.expiresAtMs),
  };
  if (item.consumedAt !== undefined) record.consumedAt = Number(item.consumedAt);
  if (item.otherTries !== undefined) record.otherTries = Number(item.otherTries);
  if (item.requester !== undefined) record.requester = String(item.requester);
  return record;
}

/** keyItem is the table item of a key record. */
function keyItem(record: ApiKeyRecord): Record<string, unknown> {
  const { keyHash, ...rest } = record;
  return { pk: `KEY#${keyHash}`, sk: "KEY", ...rest };
}

/**
 * cancelledBy tells whether a transaction was cancelled by a failed condition or a concurrent
 * transaction (at item `index`, or at any item): a lost race, not a store failure.
 */
function cancelledBy(error: unknown, index?: number): boolean {
  if ((error as Error | undefined)?.name !== "TransactionCanceledException") return false;
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
  const lost = (reason: { Code?: string } | undefined) => ["ConditionalCheckFailed", "TransactionConflict"].includes(reason?.Code ?? "");
  return index === undefined ? reasons.some(lost) : lost(reasons[index]);
}

/** createDynamoKeyStore returns a KeyStore on one DynamoDB table (schema in this file's header). */
export function createDynamoKeyStore(options: DynamoKeyStoreOptions): KeyStore {
  const db = DynamoDBDocumentClient.from(createClient(options), { marshallOptions: { removeUndefinedValues: true } });
  const TableName = options.tableName;
  // Every call runs under a deadline: the call budget, or the shorter one of the lastUsedAt touch.
  const within = (budgetMs: number) => ((command: never) => withDeadline(budgetMs, (abortSignal) => db.send(command, { abortSignal }))) as typeof db.send;
  const send = within(DYNAMODB_CALL_BUDGET_MS);
  const sendTouch = within(TOUCH_BUDGET_MS);

  async function call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /** conditional runs a conditional write; false when the condition did not hold. */
  async function conditional(run: () => Promise<unknown>): Promise<boolean> {
    try {
      await run();
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw toStoreError(error);
    }
  }

  async function getKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const out = await call(() => send(new GetCommand({ TableName, Key: { pk: `KEY#${keyHash}`, sk: "KEY" }, ConsistentRead: true })));
    const item = out.Item;
    if (!item) return undefined;
    const optional = (name: string) => (item[name] === undefined ? {} : { [name]: String(item[name]) });
    return {
      keyHash,
      keyId: String(item.keyId),
      email: String(item.email),
      createdAt: String(item.createdAt),
      lastUsedAt: String(item.lastUsedAt ?? item.createdAt),
      ...optional("owner"),
      ...optional("last4"),
      ...optional("revokedAt"),
      ...optional("revokeTokenHash"),
    } satisfies ApiKeyRecord;
  }

  return {
    async readRateSlots(bucket) {
      const out = await call(() =>
        send(new QueryCommand({ TableName, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": `RATE#${bucket}` }, ConsistentRead: true })),
      );
      const used = new Map<number, number>();
      for (const item of out.Items ?? []) used.set(Number(String(item.sk).slice(5)), Number(item.usedAt));
      return used;
    },

    async claimRateSlot(bucket, slot, expected, at, windowSeconds) {
      return conditional(() =>
        send(
          new PutCommand({
            TableName,
            Item: { pk: `RATE#${bucket}`, sk: slotKey(slot), usedAt: at, expiresAt: seconds(at) + windowSeconds },
            ...(expected === undefined
              ? { ConditionExpression: "attribute_not_exists(pk)" }
              : { ConditionExpression: "usedAt = :expected", ExpressionAttributeValues: { ":expected": expected } }),
          }),
        ),
      );
    },

    async releaseRateSlot(bucket, slot, at) {
      await conditional(() =>
        send(
          new DeleteCommand({
            TableName,
            Key: { pk: `RATE#${bucket}`, sk: slotKey(slot) },
            ConditionExpression: "usedAt = :at",
            ExpressionAttributeValues: { ":at": at },
          }),
        ),
      );
    },

    async countKeyRequest(keyId, windowStart, limit, expiresAt) {
      return conditional(() =>
        send(
          new UpdateCommand({
            TableName,
            Key: { pk: `KEYRATE#${keyId}`, sk: `WINDOW#${windowStart}` },
            UpdateExpression: "ADD requests :one SET expiresAt = :ttl",
            ConditionExpression: "attribute_not_exists(requests) OR requests < :limit",
            ExpressionAttributeValues: { ":one": 1, ":limit": limit, ":ttl": seconds(expiresAt) },
          }),
        ),
      );
    },

    async putCode(record) {
      // ALL_OLD: the replaced code comes back from the same write, so nothing can slip in between.
      const out = await call(() => send(new PutCommand({ TableName, Item: codeItem(record), ReturnValues: "ALL_OLD" })));
      return out.Attributes ? codeRecordOf(record.address, out.Attributes) : undefined;
    },

    async getCode(address) {
      const out = await call(() => send(new GetCommand({ TableName, Key: { pk: `CODE#${address}`, sk: "CODE" }, ConsistentRead: true })));
      return out.Item ? codeRecordOf(address, out.Item) : undefined;
    },

    async addWrongTry(address, codeId, now, side) {
      const live = "codeId = :id AND attribute_not_exists(consumedAt) AND wrongTries < :max AND expiresAtMs > :now";
      const values = { ":one": 1, ":id": codeId, ":max": CODE_MAX_WRONG_TRIES, ":now": now };
      try {
        const out = await send(
          new UpdateCommand({
            TableName,
            Key: { pk: `CODE#${address}`, sk: "CODE" },
            ...(side === "requester"
              ? { UpdateExpression: "ADD wrongTries :one", ConditionExpression: live, ExpressionAttributeValues: values }
              : {
                  UpdateExpression: "ADD otherTries :one",
                  ConditionExpression: `${live} AND (attribute_not_exists(otherTries) OR otherTries < :maxOther)`,
                  ExpressionAttributeValues: { ...values, ":maxOther": CODE_MAX_OTHER_TRIES },
                }),
            ReturnValues: "UPDATED_NEW",
          }),
        );
        return Number(out.Attributes?.[side === "requester" ? "wrongTries" : "otherTries"]);
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw toStoreError(error);
      }
    },

    async withdrawCode(address, codeId, previous) {
      const ours = { ConditionExpression: "codeId = :id", ExpressionAttributeValues: { ":id": codeId } };
      await conditional(() =>
        previous
          ? send(new PutCommand({ TableName, Item: codeItem(previous), ...ours }))
          : send(new DeleteCommand({ TableName, Key: { pk: `CODE#${address}`, sk: "CODE" }, ...ours })),
      );
    },

    async mintKey(claim, record, link) {
      // One transaction (SPEC 6, issue 11): a crash or failure anywhere leaves the code unused and
      // no key, or the code used and its key stored (listed, with its revocation link); never a
      // used code without a key.
      try {
        await send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName,
                  Key: { pk: `CODE#${claim.address}`, sk: "CODE" },
                  UpdateExpression: "SET consumedAt = :now, keyId = :keyId",
                  ConditionExpression: "codeId = :id AND attribute_not_exists(consumedAt) AND wrongTries < :max AND expiresAtMs > :now",
                  ExpressionAttributeValues: { ":id": claim.codeId, ":max": CODE_MAX_WRONG_TRIES, ":now": claim.now, ":keyId": record.keyId },
                },
              },
              { Put: { TableName, Item: keyItem(record), ConditionExpression: "attribute_not_exists(pk)" } },
              ...(record.owner
                ? [
                    {
                      Put: {
                        TableName,
                        Item: { pk: `OWNER#${record.owner}`, sk: `KEY#${record.keyId}`, keyHash: record.keyHash },
                        ConditionExpression: "attribute_not_exists(pk)",
                      },
                    },
                  ]
                : []),
              {
                Put: {
                  TableName,
                  Item: {
                    pk: `REVOKE#${link.tokenHash}`,
                    sk: "REVOKE",
                    keyHash: link.keyHash,
                    expiresAtMs: link.expiresAt,
                    expiresAt: seconds(link.expiresAt),
                  },
                  ConditionExpression: "attribute_not_exists(pk)",
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        // The code's condition failed, or a concurrent transaction on it won: the caller re-reads the code.
        if (cancelledBy(error, 0)) return false;
        throw toStoreError(error);
      }
    },

    async listKeys(owner) {
      const out = await call(() =>
        send(new QueryCommand({ TableName, KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": `OWNER#${owner}` }, ConsistentRead: true })),
      );
      // A handful of keys per address: one read each (GetItem only, no BatchGetItem grant needed).
      const records = await Promise.all((out.Items ?? []).map((item) => getKey(String(item.keyHash))));
      return records.filter((record): record is ApiKeyRecord => record !== undefined && !record.revokedAt && record.owner === owner);
    },

    async findOwnedKey(owner, keyId) {
      const out = await call(() => send(new GetCommand({ TableName, Key: { pk: `OWNER#${owner}`, sk: `KEY#${keyId}` }, ConsistentRead: true })));
      if (!out.Item) return undefined;
      const record = await getKey(String(out.Item.keyHash));
      return record && !record.revokedAt && record.owner === owner && record.keyId === keyId ? record : undefined;
    },

    async revokeKey(record, at, linkTokenHash) {
      const tokenHash = linkTokenHash ?? record.revokeTokenHash;
      try {
        await send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName,
                  Key: { pk: `KEY#${record.keyHash}`, sk: "KEY" },
                  UpdateExpression: "SET revokedAt = :at REMOVE revokeTokenHash",
                  ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(revokedAt)",
                  ExpressionAttributeValues: { ":at": at },
                },
              },
              ...(record.owner ? [{ Delete: { TableName, Key: { pk: `OWNER#${record.owner}`, sk: `KEY#${record.keyId}` } } }] : []),
              // Through the link, the link must still be there: it works once, even when two clicks race.
              ...(tokenHash
                ? [
                    {
                      Delete: {
                        TableName,
                        Key: { pk: `REVOKE#${tokenHash}`, sk: "REVOKE" },
                        ...(linkTokenHash ? { ConditionExpression: "attribute_exists(pk)" } : {}),
                      },
                    },
                  ]
                : []),
            ],
          }),
        );
        return true;
      } catch (error) {
        if (cancelledBy(error)) return false;
        throw toStoreError(error);
      }
    },

    async getRevokeLink(tokenHash) {
      const out = await call(() => send(new GetCommand({ TableName, Key: { pk: `REVOKE#${tokenHash}`, sk: "REVOKE" }, ConsistentRead: true })));
      const item = out.Item;
      return item ? { tokenHash, keyHash: String(item.keyHash), expiresAt: Number(item.expiresAtMs) } : undefined;
    },

    getKey,

    async touchKey(keyHash, at, notBefore) {
      await conditional(() =>
        sendTouch(
          new UpdateCommand({
            TableName,
            Key: { pk: `KEY#${keyHash}`, sk: "KEY" },
            UpdateExpression: "SET lastUsedAt = :at",
            ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :notBefore)",
            ExpressionAttributeValues: { ":at": at, ":notBefore": notBefore },
          }),
        ),
      );
    },
  };
}

/**
 * ensureKeyTable creates the key table if it is absent (local stand-in; on AWS the stack owns it)
 * and waits until it is active. TTL is not switched on here: dynalite does not support it.
 */
export async function ensureKeyTable(options: DynamoKeyStoreOptions): Promise<void> {
  const client = createClient(options);
  try {
    try {
      await client.send(
        new CreateTableCommand({
          TableName: options.tableName,
          AttributeDefinitions: [
            { AttributeName: "pk", AttributeType: "S" },
            { AttributeName: "sk", AttributeType: "S" },
          ],
          KeySchema: [
            { AttributeName: "pk", KeyType: "HASH" },
            { AttributeName: "sk", KeyType: "RANGE" },
          ],
          BillingMode: "PAY_PER_REQUEST",
        }),
      );
    } catch (error) {
      if (!(error instanceof ResourceInUseException)) throw error; // it exists already
    }
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        const { Table } = await client.send(new DescribeTableCommand({ TableName: options.tableName }));
        if (Table?.TableStatus === "ACTIVE") return;
      } catch (error) {
        if (!(error instanceof ResourceNotFoundException)) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`The key table ${options.tableName} did not become active`);
  } finally {
    client.destroy();
  }
}

/** keyStoreOptions are the options of this container's key table, from config. */
export function keyStoreOptions(): DynamoKeyStoreOptions {
  return { tableName: config.keys.tableName, region: config.region, ...(config.keys.dynamodbEndpoint ? { endpoint: config.keys.dynamodbEndpoint } : {}) };
}

let shared: KeyStore | undefined;

/** defaultKeyStore is this container's key store, created once on first use from config. */
export function defaultKeyStore(): KeyStore {
  shared ??= createDynamoKeyStore(keyStoreOptions());
  return shared;
}
