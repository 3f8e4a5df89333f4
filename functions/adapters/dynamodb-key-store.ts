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
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type GetCommandOutput,
  type PutCommandOutput,
  type QueryCommandOutput,
  type UpdateCommandOutput,
} from "@aws-sdk/lib-dynamodb";
import { withDeadline } from "#adapters/call-deadline.ts";
import { DYNAMODB_CALL_BUDGET_MS, DYNAMODB_CLIENT_LIMITS, TOUCH_BUDGET_MS } from "#functions/timeouts.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { ApiKeyRecord, CodeClaim, KeyStore, RevokeLink } from "#domain/keys/key-store.ts";
import { CODE_MAX_OTHER_TRIES, CODE_MAX_WRONG_TRIES, type CodeRecord, type TrySide } from "#domain/keys/verification-code.ts";

/** DynamoKeyStoreOptions say which table and which endpoint (a stand-in locally). */
export interface DynamoKeyStoreOptions {
  tableName: string;
  endpoint?: string;
  region: string;
  /** Static credentials (the local stand-ins'); unset: the SDK's own chain. */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

type Item = Record<string, unknown>;
type ItemKey = { pk: string; sk: string };

const seconds = (ms: number) => Math.ceil(ms / 1000);
const SLOT_PREFIX = "SLOT#";

/** itemKeys is the one place an item key or partition of the table is spelled (schema in this file's header). */
const itemKeys = {
  apiKey: (keyHash: string): ItemKey => ({ pk: `KEY#${keyHash}`, sk: "KEY" }),
  ownerPartition: (owner: string) => `OWNER#${owner}`,
  listing: (owner: string, keyId: string): ItemKey => ({ pk: itemKeys.ownerPartition(owner), sk: `KEY#${keyId}` }),
  revokeLink: (tokenHash: string): ItemKey => ({ pk: `REVOKE#${tokenHash}`, sk: "REVOKE" }),
  code: (address: string): ItemKey => ({ pk: `CODE#${address}`, sk: "CODE" }),
  keyRate: (keyId: string, windowStart: number): ItemKey => ({ pk: `KEYRATE#${keyId}`, sk: `WINDOW#${windowStart}` }),
  ratePartition: (bucket: string) => `RATE#${bucket}`,
  rateSlot: (bucket: string, slot: number): ItemKey => ({ pk: itemKeys.ratePartition(bucket), sk: `${SLOT_PREFIX}${String(slot).padStart(3, "0")}` }),
  slotOf: (sk: unknown) => Number(String(sk).slice(SLOT_PREFIX.length)),
};

/** ABSENT is the condition of a write that creates its item. */
const ABSENT = "attribute_not_exists(pk)";
/** LIVE_CODE is the condition of a code that can still be tried or claimed (:id, :max, :now). */
const LIVE_CODE = "codeId = :id AND attribute_not_exists(consumedAt) AND wrongTries < :max AND expiresAtMs > :now";

/** conditionFailed: a single-item write's condition did not hold. */
const conditionFailed = (error: unknown) => (error as Error | undefined)?.name === "ConditionalCheckFailedException";

/**
 * transactionLost: a transaction was cancelled by a failed condition or a concurrent transaction
 * (at item `index`, or at any item): a lost race, not a store failure.
 */
const transactionLost =
  (index?: number) =>
  (error: unknown): boolean => {
    if ((error as Error | undefined)?.name !== "TransactionCanceledException") return false;
    const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
    const lost = (reason: { Code?: string } | undefined) => ["ConditionalCheckFailed", "TransactionConflict"].includes(reason?.Code ?? "");
    return index === undefined ? reasons.some(lost) : lost(reasons[index]);
  };

/** toStoreError is the one error mapping: an SDK failure becomes SERVICE_UNAVAILABLE; programming errors stay as they are. */
function toStoreError(error: unknown): unknown {
  const name = (error as Error | undefined)?.name;
  if (name === "ValidationException" || name === "SerializationException") return error;
  return new SignetError("SERVICE_UNAVAILABLE", "The key store cannot be reached right now; retry in a moment.", { cause: error });
}

/** createDynamoClient is a DynamoDB client for the key table's endpoint, each call bounded by DYNAMODB_CLIENT_LIMITS (the idempotency store shares it). */
export function createDynamoClient(options: DynamoKeyStoreOptions): DynamoDBClient {
  return new DynamoDBClient({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
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
function codeItem(record: CodeRecord): Item {
  return {
    ...itemKeys.code(record.address),
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

function codeRecordOf(address: string, item: Item): CodeRecord {
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
function keyItem(record: ApiKeyRecord): Item {
  const { keyHash, ...rest } = record;
  return { ...itemKeys.apiKey(keyHash), ...rest };
}

function keyRecordOf(keyHash: string, item: Item): ApiKeyRecord {
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

/** Command is any lib-dynamodb command this store sends. */
type Command = GetCommand | PutCommand | DeleteCommand | UpdateCommand | QueryCommand | TransactWriteCommand;

/**
 * DynamoKeyStore is the KeyStore on one DynamoDB table (schema in this file's header): one method
 * per operation, item keys from itemKeys, every call under a deadline through send(), every
 * conditional write through conditional(), every failure mapped by toStoreError.
 */
class DynamoKeyStore implements KeyStore {
  readonly #db: DynamoDBDocumentClient;
  readonly #table: string;

  constructor(options: DynamoKeyStoreOptions) {
    this.#db = DynamoDBDocumentClient.from(createDynamoClient(options), { marshallOptions: { removeUndefinedValues: true } });
    this.#table = options.tableName;
  }

  /** send runs one command under its deadline (the call budget, or the touch's shorter one); failures become store errors. */
  async #send<O>(command: Command, budgetMs = DYNAMODB_CALL_BUDGET_MS): Promise<O> {
    try {
      return await this.#raw<O>(command, budgetMs);
    } catch (error) {
      throw toStoreError(error);
    }
  }

  #raw<O>(command: Command, budgetMs: number): Promise<O> {
    const send = this.#db.send.bind(this.#db) as (command: Command, options: { abortSignal: AbortSignal }) => Promise<O>;
    return withDeadline(budgetMs, (abortSignal) => send(command, { abortSignal }));
  }

  /** conditional runs a conditional write: its output, or undefined when the condition did not hold (`lost`). */
  async #conditional<O>(command: Command, lost: (error: unknown) => boolean = conditionFailed, budgetMs = DYNAMODB_CALL_BUDGET_MS): Promise<O | undefined> {
    try {
      return await this.#raw<O>(command, budgetMs);
    } catch (error) {
      if (lost(error)) return undefined;
      throw toStoreError(error);
    }
  }

  async #get(Key: ItemKey): Promise<Item | undefined> {
    return (await this.#send<GetCommandOutput>(new GetCommand({ TableName: this.#table, Key, ConsistentRead: true }))).Item;
  }

  async #query(pk: string): Promise<Item[]> {
    const command = new QueryCommand({
      TableName: this.#table,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": pk },
      ConsistentRead: true,
    });
    return (await this.#send<QueryCommandOutput>(command)).Items ?? [];
  }

  async readRateSlots(bucket: string): Promise<Map<number, number>> {
    const used = new Map<number, number>();
    for (const item of await this.#query(itemKeys.ratePartition(bucket))) used.set(itemKeys.slotOf(item.sk), Number(item.usedAt));
    return used;
  }

  async claimRateSlot(bucket: string, slot: number, expected: number | undefined, at: number, windowSeconds: number): Promise<boolean> {
    const Item = { ...itemKeys.rateSlot(bucket, slot), usedAt: at, expiresAt: seconds(at) + windowSeconds };
    const condition =
      expected === undefined
        ? { ConditionExpression: ABSENT }
        : { ConditionExpression: "usedAt = :expected", ExpressionAttributeValues: { ":expected": expected } };
    return (await this.#conditional(new PutCommand({ TableName: this.#table, Item, ...condition }))) !== undefined;
  }

  async releaseRateSlot(bucket: string, slot: number, at: number): Promise<void> {
    const Key = itemKeys.rateSlot(bucket, slot);
    await this.#conditional(new DeleteCommand({ TableName: this.#table, Key, ConditionExpression: "usedAt = :at", ExpressionAttributeValues: { ":at": at } }));
  }

  async countKeyRequest(keyId: string, windowStart: number, limit: number, expiresAt: number): Promise<boolean> {
    const command = new UpdateCommand({
      TableName: this.#table,
      Key: itemKeys.keyRate(keyId, windowStart),
      UpdateExpression: "ADD requests :one SET expiresAt = :ttl",
      ConditionExpression: "attribute_not_exists(requests) OR requests < :limit",
      ExpressionAttributeValues: { ":one": 1, ":limit": limit, ":ttl": seconds(expiresAt) },
    });
    return (await this.#conditional(command)) !== undefined;
  }

  async putCode(record: CodeRecord): Promise<CodeRecord | undefined> {
    // ALL_OLD: the replaced code comes back from the same write, so nothing can slip in between.
    const out = await this.#send<PutCommandOutput>(new PutCommand({ TableName: this.#table, Item: codeItem(record), ReturnValues: "ALL_OLD" }));
    return out.Attributes ? codeRecordOf(record.address, out.Attributes) : undefined;
  }

  async getCode(address: string): Promise<CodeRecord | undefined> {
    const item = await this.#get(itemKeys.code(address));
    return item ? codeRecordOf(address, item) : undefined;
  }

  async addWrongTry(address: string, codeId: string, now: number, side: TrySide): Promise<number | undefined> {
    const values = { ":one": 1, ":id": codeId, ":max": CODE_MAX_WRONG_TRIES, ":now": now };
    const update =
      side === "requester"
        ? { UpdateExpression: "ADD wrongTries :one", ConditionExpression: LIVE_CODE, ExpressionAttributeValues: values }
        : {
            UpdateExpression: "ADD otherTries :one",
            ConditionExpression: `${LIVE_CODE} AND (attribute_not_exists(otherTries) OR otherTries < :maxOther)`,
            ExpressionAttributeValues: { ...values, ":maxOther": CODE_MAX_OTHER_TRIES },
          };
    const command = new UpdateCommand({ TableName: this.#table, Key: itemKeys.code(address), ...update, ReturnValues: "UPDATED_NEW" });
    const out = await this.#conditional<UpdateCommandOutput>(command);
    return out && Number(out.Attributes?.[side === "requester" ? "wrongTries" : "otherTries"]);
  }

  async withdrawCode(address: string, codeId: string, previous: CodeRecord | undefined): Promise<void> {
    const ours = { TableName: this.#table, ConditionExpression: "codeId = :id", ExpressionAttributeValues: { ":id": codeId } };
    await this.#conditional(previous ? new PutCommand({ Item: codeItem(previous), ...ours }) : new DeleteCommand({ Key: itemKeys.code(address), ...ours }));
  }

  async mintKey(claim: CodeClaim, record: ApiKeyRecord, link: RevokeLink): Promise<boolean> {
    // One transaction: a crash or failure anywhere leaves the code unused and no key, or the code
    // used and its key stored (listed, with its revocation link); never a used code without a key.
    const TableName = this.#table;
    const create = (Item: Item) => ({ Put: { TableName, Item, ConditionExpression: ABSENT } });
    const claimCode = {
      Update: {
        TableName,
        Key: itemKeys.code(claim.address),
        UpdateExpression: "SET consumedAt = :now, keyId = :keyId",
        ConditionExpression: LIVE_CODE,
        ExpressionAttributeValues: { ":id": claim.codeId, ":max": CODE_MAX_WRONG_TRIES, ":now": claim.now, ":keyId": record.keyId },
      },
    };
    const TransactItems = [
      claimCode,
      create(keyItem(record)),
      ...(record.owner ? [create({ ...itemKeys.listing(record.owner, record.keyId), keyHash: record.keyHash })] : []),
      create({ ...itemKeys.revokeLink(link.tokenHash), keyHash: link.keyHash, expiresAtMs: link.expiresAt, expiresAt: seconds(link.expiresAt) }),
    ];
    // The code's condition failed, or a concurrent transaction on it won: the caller re-reads the code.
    return (await this.#conditional(new TransactWriteCommand({ TransactItems }), transactionLost(0))) !== undefined;
  }

  async listKeys(owner: string): Promise<ApiKeyRecord[]> {
    const listed = await this.#query(itemKeys.ownerPartition(owner));
    // A handful of keys per address: one read each (GetItem only, no BatchGetItem grant needed).
    const records = await Promise.all(listed.map((item) => this.getKey(String(item.keyHash))));
    return records.filter((record): record is ApiKeyRecord => record !== undefined && !record.revokedAt && record.owner === owner);
  }

  async findOwnedKey(owner: string, keyId: string): Promise<ApiKeyRecord | undefined> {
    const listing = await this.#get(itemKeys.listing(owner, keyId));
    if (!listing) return undefined;
    const record = await this.getKey(String(listing.keyHash));
    return record && !record.revokedAt && record.owner === owner && record.keyId === keyId ? record : undefined;
  }

  async revokeKey(record: ApiKeyRecord, at: string, linkTokenHash?: string): Promise<boolean> {
    const TableName = this.#table;
    const tokenHash = linkTokenHash ?? record.revokeTokenHash;
    const markRevoked = {
      Update: {
        TableName,
        Key: itemKeys.apiKey(record.keyHash),
        UpdateExpression: "SET revokedAt = :at REMOVE revokeTokenHash",
        ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(revokedAt)",
        ExpressionAttributeValues: { ":at": at },
      },
    };
    const TransactItems = [
      markRevoked,
      ...(record.owner ? [{ Delete: { TableName, Key: itemKeys.listing(record.owner, record.keyId) } }] : []),
      // Through the link, the link must still be there: it works once, even when two clicks race.
      ...(tokenHash
        ? [{ Delete: { TableName, Key: itemKeys.revokeLink(tokenHash), ...(linkTokenHash ? { ConditionExpression: "attribute_exists(pk)" } : {}) } }]
        : []),
    ];
    return (await this.#conditional(new TransactWriteCommand({ TransactItems }), transactionLost())) !== undefined;
  }

  async getRevokeLink(tokenHash: string): Promise<RevokeLink | undefined> {
    const item = await this.#get(itemKeys.revokeLink(tokenHash));
    return item ? { tokenHash, keyHash: String(item.keyHash), expiresAt: Number(item.expiresAtMs) } : undefined;
  }

  async getKey(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const item = await this.#get(itemKeys.apiKey(keyHash));
    return item ? keyRecordOf(keyHash, item) : undefined;
  }

  async touchKey(keyHash: string, at: string, notBefore: string): Promise<void> {
    const command = new UpdateCommand({
      TableName: this.#table,
      Key: itemKeys.apiKey(keyHash),
      UpdateExpression: "SET lastUsedAt = :at",
      ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :notBefore)",
      ExpressionAttributeValues: { ":at": at, ":notBefore": notBefore },
    });
    await this.#conditional(command, conditionFailed, TOUCH_BUDGET_MS);
  }
}

/**
 * createDynamoKeyStore returns a KeyStore on one DynamoDB table (schema in this file's header): a
 * DynamoKeyStore's operations as plain bound functions, so the port can be spread, wrapped or
 * destructured as before.
 */
export function createDynamoKeyStore(options: DynamoKeyStoreOptions): KeyStore {
  const store = new DynamoKeyStore(options);
  const operations = Object.getOwnPropertyNames(DynamoKeyStore.prototype).filter((name) => name !== "constructor") as Array<keyof KeyStore>;
  return Object.fromEntries(operations.map((name) => [name, (store[name] as (...args: never[]) => unknown).bind(store)])) as unknown as KeyStore;
}

/**
 * ensureKeyTable creates the key table if it is absent (local stand-in; on AWS the stack owns it)
 * and waits until it is active. TTL is not switched on here: dynalite does not support it.
 */
export async function ensureKeyTable(options: DynamoKeyStoreOptions): Promise<void> {
  const client = createDynamoClient(options);
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
