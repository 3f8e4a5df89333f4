/**
 * Idempotency records in the key table (DynamoDB on AWS, dynalite locally), answers over
 * INLINE_BODY_MAX_BYTES in the uploads bucket (S3, the S3 stand-in locally).
 *
 * Item (the table's schema: functions/adapters/dynamodb-key-store.ts):
 *   idempotency   pk `IDEM#<scope: sha256 hex of key id and Idempotency-Key>`  sk `IDEM`
 *                 state (S: running | done), fingerprint (S, sha256 hex of the request),
 *                 lockToken (S), lockExpiresAtMs (N), expiresAtMs (N), expiresAt (N, TTL seconds);
 *                 once done: statusCode (N), headers (S, JSON), encoding (S: text | binary) and
 *                 body (B) or bodyObject (S, the S3 key `idempotency/<scope>/<lockToken>`)
 * A job record of asynchronous work can live beside it under its own prefix (`JOB#<id>`).
 *
 * Every write is conditional: a claim creates the item only when none is live or the live one's
 * lock expired (its run died), and only the run holding lockToken completes or releases it.
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { DeleteCommand, DynamoDBDocumentClient, GetCommand, type GetCommandOutput, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { withDeadline } from "#adapters/call-deadline.ts";
import { createDynamoClient, type DynamoKeyStoreOptions } from "#adapters/dynamodb-key-store.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Claim, IdempotencyRecord, IdempotencyStore, StoredAnswer } from "#domain/shared/idempotency.ts";
import { DYNAMODB_CALL_BUDGET_MS } from "#functions/timeouts.ts";

/** INLINE_BODY_MAX_BYTES: a larger answer goes to S3; a DynamoDB item holds at most 400 KB, attribute names and headers included. */
const INLINE_BODY_MAX_BYTES = 300 * 1024;

/** IdempotencyStoreOptions are the key table's and the bucket's coordinates. */
export interface IdempotencyStoreOptions {
  table: DynamoKeyStoreOptions;
  s3: S3Client;
  /** The uploads bucket; unset, answers over INLINE_BODY_MAX_BYTES are not kept (a retry runs again). */
  bucket: string | undefined;
}

type Item = Record<string, unknown>;

const itemKey = (scope: string) => ({ pk: `IDEM#${scope}`, sk: "IDEM" });
const objectKey = (scope: string, lockToken: string) => `idempotency/${scope}/${lockToken}`;
const conditionFailed = (error: unknown) => (error as Error | undefined)?.name === "ConditionalCheckFailedException";
const HELD = "lockToken = :token AND #state = :running";

function storeError(error: unknown): SignetError {
  if (error instanceof SignetError) return error;
  return new SignetError("SERVICE_UNAVAILABLE", "Idempotency keys cannot be checked right now; retry in a moment.", { cause: error });
}

/** DynamoIdempotencyStore is the IdempotencyStore of this file's header. */
class DynamoIdempotencyStore implements IdempotencyStore {
  readonly #db: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #s3: S3Client;
  readonly #bucket: string | undefined;

  constructor(options: IdempotencyStoreOptions) {
    this.#db = DynamoDBDocumentClient.from(createDynamoClient(options.table), { marshallOptions: { removeUndefinedValues: true } });
    this.#table = options.table.tableName;
    this.#s3 = options.s3;
    this.#bucket = options.bucket;
  }

  async #send<O>(command: GetCommand | PutCommand | UpdateCommand | DeleteCommand): Promise<O> {
    const send = this.#db.send.bind(this.#db) as (command: unknown, options: { abortSignal: AbortSignal }) => Promise<O>;
    return withDeadline(DYNAMODB_CALL_BUDGET_MS, (abortSignal) => send(command, { abortSignal }));
  }

  /** conditional: true when the write's condition held, false when it did not. */
  async #conditional(command: PutCommand | UpdateCommand | DeleteCommand): Promise<boolean> {
    try {
      await this.#send(command);
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw storeError(error);
    }
  }

  async claim(claim: Claim): Promise<"claimed" | IdempotencyRecord> {
    const Item = {
      ...itemKey(claim.scope),
      state: "running",
      fingerprint: claim.fingerprint,
      lockToken: claim.lockToken,
      lockExpiresAtMs: claim.lockExpiresAt,
      expiresAtMs: claim.expiresAt,
      expiresAt: Math.ceil(claim.expiresAt / 1000),
    };
    const put = new PutCommand({
      TableName: this.#table,
      Item,
      // TTL deletes late: an expired record, or a running one whose lock passed (its run died), is free.
      ConditionExpression: "attribute_not_exists(pk) OR expiresAtMs <= :now OR (#state = :running AND lockExpiresAtMs <= :now)",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":now": claim.now, ":running": "running" },
    });
    // A record released between the failed claim and the read: claim again (a few times at most).
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.#conditional(put)) return "claimed";
      const item = await this.#read(claim.scope);
      if (item) return this.#recordOf(item);
    }
    throw storeError(new Error("the idempotency record kept changing during the claim"));
  }

  async #read(scope: string): Promise<Item | undefined> {
    try {
      return (await this.#send<GetCommandOutput>(new GetCommand({ TableName: this.#table, Key: itemKey(scope), ConsistentRead: true }))).Item;
    } catch (error) {
      throw storeError(error);
    }
  }

  async #recordOf(item: Item): Promise<IdempotencyRecord> {
    const fingerprint = String(item.fingerprint);
    if (item.state !== "done") return { state: "running", fingerprint, lockExpiresAt: Number(item.lockExpiresAtMs) };
    const body = item.bodyObject === undefined ? bytesOf(item.body) : await this.#readObject(String(item.bodyObject));
    const answer: StoredAnswer = {
      statusCode: Number(item.statusCode),
      headers: JSON.parse(String(item.headers)) as Record<string, string>,
      encoding: item.encoding === "binary" ? "binary" : "text",
      body,
    };
    return { state: "done", fingerprint, answer };
  }

  async #readObject(key: string): Promise<Buffer> {
    try {
      const answer = await this.#s3.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (error) {
      throw storeError(error);
    }
  }

  async complete(scope: string, lockToken: string, answer: StoredAnswer, expiresAt: number): Promise<boolean> {
    const large = answer.body.length > INLINE_BODY_MAX_BYTES;
    if (large && !this.#bucket) {
      // Nowhere to keep it: the key is freed, and a retry runs again.
      await this.release(scope, lockToken);
      return false;
    }
    const key = objectKey(scope, lockToken);
    if (large) await this.#s3.send(new PutObjectCommand({ Bucket: this.#bucket, Key: key, Body: answer.body }));
    const update = new UpdateCommand({
      TableName: this.#table,
      Key: itemKey(scope),
      UpdateExpression: `SET #state = :done, statusCode = :status, headers = :headers, encoding = :encoding, ${large ? "bodyObject" : "body"} = :body, expiresAtMs = :expiresAtMs, expiresAt = :ttl`,
      ConditionExpression: HELD,
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: {
        ":token": lockToken,
        ":running": "running",
        ":done": "done",
        ":status": answer.statusCode,
        ":headers": JSON.stringify(answer.headers),
        ":encoding": answer.encoding,
        ":body": large ? key : answer.body,
        ":expiresAtMs": expiresAt,
        ":ttl": Math.ceil(expiresAt / 1000),
      },
    });
    const kept = await this.#conditional(update);
    // Another run took the scope over (this one outlived its lock): its answer stands, this object goes.
    if (!kept && large) await this.#s3.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key })).catch(() => undefined);
    return kept;
  }

  async release(scope: string, lockToken: string): Promise<void> {
    await this.#conditional(
      new DeleteCommand({
        TableName: this.#table,
        Key: itemKey(scope),
        ConditionExpression: HELD,
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":token": lockToken, ":running": "running" },
      }),
    );
  }
}

/** bytesOf is a binary attribute as a Buffer (lib-dynamodb gives a Uint8Array), without a copy. */
function bytesOf(value: unknown): Buffer {
  const bytes = value instanceof Uint8Array ? value : new Uint8Array(0);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** createIdempotencyStore is the IdempotencyStore on the key table and the uploads bucket (this file's header). */
export function createIdempotencyStore(options: IdempotencyStoreOptions): IdempotencyStore {
  return new DynamoIdempotencyStore(options);
}
