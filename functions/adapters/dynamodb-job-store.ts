/**
 * Job records in the key table (DynamoDB on AWS, dynalite locally), beside the idempotency
 * records; each job's request and its large results in the uploads bucket's jobs/ folder (S3, the
 * S3 stand-in locally), where a lifecycle rule deletes them on AWS.
 *
 * Items (the table's schema: functions/adapters/dynamodb-key-store.ts):
 *   job        pk `JOB#<id>`  sk `JOB`: ownerKeyId, route, status, callbackUrl, createdAtMs,
 *              startedAtMs, finishedAtMs, attempts, leaseExpiresAtMs, expiresAtMs (the result's
 *              expiry), expiresAt (TTL seconds: a week after that, so the job reads `expired` meanwhile);
 *              until it finishes its request (B, up to 256 KB; a larger one in `jobs/<id>/request`);
 *              once finished, the request gone: statusCode (N), headers (S, JSON), encoding, body (B) or bodyObject
 *              (S, `jobs/<id>/result`)
 *   unfinished pk `JOBQ`  sk `<createdAtMs, 15 digits>#<id>`: a queued or running job (locally
 *              only, `indexJobs`: the in-process pool's queue; on AWS SQS holds the queue)
 *   to expire  pk `JOBX`  sk `<expiresAtMs, 15 digits>#<id>`: a finished job; on AWS only one
 *              with a callbackUrl (its job.expired webhook: the webhook sweeper expires it), the
 *              others are left to the lifecycle rule and the TTL; locally every one (the pool's sweep)
 */
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import {
  BatchWriteCommand,
  type BatchWriteCommandInput,
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { withDeadline } from "#adapters/call-deadline.ts";
import { createDynamoClient, type DynamoKeyStoreOptions } from "#adapters/dynamodb-key-store.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { StoredAnswer } from "#domain/shared/idempotency.ts";
import type { JobRecord, JobStatus, JobStore, Outcome } from "#domain/jobs/job.ts";
import { DYNAMODB_CALL_BUDGET_MS } from "#functions/timeouts.ts";

/** INLINE_RESULT_MAX_BYTES: a larger answer goes to the bucket, and the job shows a presigned GET of it; a smaller one is shown inline. */
const INLINE_RESULT_MAX_BYTES = 16 * 1024;

/** INLINE_REQUEST_MAX_BYTES: a request up to this size is kept in the job's item (one write less); a larger one in the bucket. */
const INLINE_REQUEST_MAX_BYTES = 256 * 1024;

/** RECORD_KEPT_MS: a job record outlives its result by a week, reading `expired`, then the TTL removes it. */
const RECORD_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/** JobStoreOptions are the key table's and the bucket's coordinates. */
export interface JobStoreOptions {
  table: DynamoKeyStoreOptions;
  s3: S3Client;
  bucket: string;
  /**
   * Keep the unfinished index and every job's to-expire item (the local pool reads them); without
   * it (AWS: SQS and lifecycle rules) only jobs with a callbackUrl get a to-expire item.
   */
  indexJobs: boolean;
}

type Item = Record<string, unknown>;
type Command = GetCommand | PutCommand | UpdateCommand | DeleteCommand | QueryCommand | BatchWriteCommand;

// Every attribute of a job's item but its request, each by a placeholder (several are DynamoDB reserved words).
const RECORD_ATTRIBUTES = [
  "pk",
  "ownerKeyId",
  "route",
  "status",
  "callbackUrl",
  "createdAtMs",
  "startedAtMs",
  "finishedAtMs",
  "attempts",
  "leaseExpiresAtMs",
  "expiresAtMs",
  "statusCode",
  "headers",
  "encoding",
  "body",
  "bodyObject",
];
const recordProjection = {
  ProjectionExpression: RECORD_ATTRIBUTES.map((_, index) => `#a${index}`).join(", "),
  ExpressionAttributeNames: Object.fromEntries(RECORD_ATTRIBUTES.map((name, index) => [`#a${index}`, name])),
};
const jobKey = (id: string) => ({ pk: `JOB#${id}`, sk: "JOB" });
const sortKey = (ms: number, id: string) => `${String(Math.max(0, Math.floor(ms))).padStart(15, "0")}#${id}`;
const requestKey = (id: string) => `jobs/${id}/request`;
const resultKey = (id: string) => `jobs/${id}/result`;
const conditionFailed = (error: unknown) => (error as Error | undefined)?.name === "ConditionalCheckFailedException";

function storeError(error: unknown): SignetError {
  if (error instanceof SignetError) return error;
  return new SignetError("SERVICE_UNAVAILABLE", "Jobs cannot be read or kept right now; retry in a moment.", { cause: error });
}

/** recordOf is an item as a JobRecord (the answer's body read separately when it is in the bucket). */
function recordOf(item: Item, body: Buffer | undefined): JobRecord {
  const optional = (name: string) => (item[name] === undefined ? undefined : Number(item[name]));
  const answer: StoredAnswer | undefined =
    item.statusCode === undefined
      ? undefined
      : {
          statusCode: Number(item.statusCode),
          headers: JSON.parse(String(item.headers)) as Record<string, string>,
          encoding: item.encoding === "binary" ? "binary" : "text",
          body: body ?? Buffer.alloc(0),
        };
  const times = { startedAt: optional("startedAtMs"), finishedAt: optional("finishedAtMs"), leaseExpiresAt: optional("leaseExpiresAtMs") };
  return {
    id: String(item.pk).slice("JOB#".length),
    ownerKeyId: String(item.ownerKeyId),
    route: String(item.route),
    status: String(item.status) as JobStatus,
    ...(item.callbackUrl === undefined ? {} : { callbackUrl: String(item.callbackUrl) }),
    createdAt: Number(item.createdAtMs),
    ...Object.fromEntries(Object.entries(times).filter(([, value]) => value !== undefined)),
    attempts: Number(item.attempts ?? 0),
    expiresAt: Number(item.expiresAtMs),
    ...(answer ? { answer } : {}),
  };
}

/** bytesOf is a binary attribute as a Buffer (lib-dynamodb gives a Uint8Array). */
function bytesOf(value: unknown): Buffer | undefined {
  return value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : undefined;
}

/** DynamoJobStore is the JobStore of this file's header. */
class DynamoJobStore implements JobStore {
  readonly #db: DynamoDBDocumentClient;
  readonly #table: string;
  readonly #s3: S3Client;
  readonly #bucket: string;
  readonly #index: boolean;
  /** Requests a claim read with the job (its UpdateItem answers the whole item), until the run asks for them: one GetItem less per run. */
  readonly #claimed = new Map<string, Buffer>();

  constructor(options: JobStoreOptions) {
    this.#db = DynamoDBDocumentClient.from(createDynamoClient(options.table), { marshallOptions: { removeUndefinedValues: true } });
    this.#table = options.table.tableName;
    this.#s3 = options.s3;
    this.#bucket = options.bucket;
    this.#index = options.indexJobs;
  }

  async #send<O>(command: Command): Promise<O> {
    const send = this.#db.send.bind(this.#db) as (command: unknown, options: { abortSignal: AbortSignal }) => Promise<O>;
    try {
      return await withDeadline(DYNAMODB_CALL_BUDGET_MS, (abortSignal) => send(command, { abortSignal }));
    } catch (error) {
      if (conditionFailed(error)) throw error;
      throw storeError(error);
    }
  }

  async #conditional(command: PutCommand | UpdateCommand): Promise<boolean> {
    try {
      await this.#send(command);
      return true;
    } catch (error) {
      if (conditionFailed(error)) return false;
      throw error;
    }
  }

  /** batch makes a few writes in one BatchWriteItem; what the table leaves unprocessed is a store error (the run is retried). */
  async #batch(writes: NonNullable<BatchWriteCommandInput["RequestItems"]>[string]): Promise<void> {
    const answer = await this.#send<{ UnprocessedItems?: Record<string, unknown[]> }>(new BatchWriteCommand({ RequestItems: { [this.#table]: writes } }));
    if ((answer.UnprocessedItems?.[this.#table]?.length ?? 0) > 0) throw storeError(new Error("index writes left unprocessed"));
  }

  async #object(key: string): Promise<Buffer> {
    try {
      const answer = await this.#s3.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key }));
      return Buffer.from(await answer.Body!.transformToByteArray());
    } catch (error) {
      throw storeError(error);
    }
  }

  async create(job: JobRecord, request: Buffer): Promise<void> {
    const inline = request.length <= INLINE_REQUEST_MAX_BYTES;
    try {
      if (!inline) await this.#s3.send(new PutObjectCommand({ Bucket: this.#bucket, Key: requestKey(job.id), Body: request }));
    } catch (error) {
      throw storeError(error);
    }
    const Item = {
      ...(inline ? { request } : {}),
      ...jobKey(job.id),
      ownerKeyId: job.ownerKeyId,
      route: job.route,
      status: job.status,
      callbackUrl: job.callbackUrl,
      createdAtMs: job.createdAt,
      attempts: 0,
      expiresAtMs: job.expiresAt,
      expiresAt: Math.ceil((job.expiresAt + RECORD_KEPT_MS) / 1000),
    };
    await this.#send(new PutCommand({ TableName: this.#table, Item, ConditionExpression: "attribute_not_exists(pk)" }));
    if (this.#index) await this.#send(new PutCommand({ TableName: this.#table, Item: { pk: "JOBQ", sk: sortKey(job.createdAt, job.id) } }));
  }

  async get(id: string): Promise<JobRecord | undefined> {
    // Everything but the request, which only the run reads (requestOf).
    const read = new GetCommand({
      TableName: this.#table,
      Key: jobKey(id),
      ConsistentRead: true,
      ...recordProjection,
    });
    const item = (await this.#send<{ Item?: Item }>(read)).Item;
    if (!item) return undefined;
    const body = item.bodyObject === undefined ? bytesOf(item.body) : await this.#object(String(item.bodyObject));
    return recordOf(item, body);
  }

  async requestOf(id: string): Promise<Buffer> {
    const claimed = this.#claimed.get(id);
    if (claimed) {
      this.#claimed.delete(id);
      return claimed;
    }
    const item = (
      await this.#send<{ Item?: Item }>(
        new GetCommand({
          TableName: this.#table,
          Key: jobKey(id),
          ProjectionExpression: "#request",
          ExpressionAttributeNames: { "#request": "request" },
          ConsistentRead: true,
        }),
      )
    ).Item;
    return bytesOf(item?.request) ?? this.#object(requestKey(id));
  }

  async claim(id: string, now: number, leaseExpiresAt: number, staleBefore = 0): Promise<JobRecord | undefined> {
    try {
      const answer = await this.#send<{ Attributes?: Item }>(
        new UpdateCommand({
          TableName: this.#table,
          Key: jobKey(id),
          UpdateExpression: "SET #status = :running, startedAtMs = :now, leaseExpiresAtMs = :lease ADD attempts :one",
          // Queued, or running with a lease that passed or started before staleBefore (its worker died).
          ConditionExpression: "attribute_exists(pk) AND (#status = :queued OR (#status = :running AND (leaseExpiresAtMs <= :now OR startedAtMs < :stale)))",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":running": "running", ":queued": "queued", ":now": now, ":lease": leaseExpiresAt, ":one": 1, ":stale": staleBefore },
          ReturnValues: "ALL_NEW",
        }),
      );
      if (!answer.Attributes) return undefined;
      const request = bytesOf(answer.Attributes.request);
      if (request) this.#claimed.set(id, request);
      return recordOf(answer.Attributes, undefined);
    } catch (error) {
      if (conditionFailed(error)) return undefined;
      throw error;
    }
  }

  async finish(job: Pick<JobRecord, "id" | "createdAt" | "callbackUrl">, outcome: Outcome, finishedAt: number, expiresAt: number): Promise<boolean> {
    const { id } = job;
    const { answer } = outcome;
    this.#claimed.delete(id);
    const large = answer.body.length > INLINE_RESULT_MAX_BYTES;
    if (large)
      await this.#s3
        .send(new PutObjectCommand({ Bucket: this.#bucket, Key: resultKey(id), Body: answer.body }))
        .catch((error) => Promise.reject(storeError(error)));
    const finished = await this.#conditional(
      new UpdateCommand({
        TableName: this.#table,
        Key: jobKey(id),
        // The request goes in the same write: a job that ran keeps no password nor document of it.
        UpdateExpression: `SET #status = :status, finishedAtMs = :finished, statusCode = :code, headers = :headers, encoding = :encoding, ${large ? "bodyObject" : "body"} = :body, expiresAtMs = :expires, expiresAt = :ttl REMOVE leaseExpiresAtMs, #request`,
        ConditionExpression: "#status = :running",
        ExpressionAttributeNames: { "#status": "status", "#request": "request" },
        ExpressionAttributeValues: {
          ":status": outcome.status,
          ":running": "running",
          ":finished": finishedAt,
          ":code": answer.statusCode,
          ":headers": JSON.stringify(answer.headers),
          ":encoding": answer.encoding,
          ":body": large ? resultKey(id) : answer.body,
          ":expires": expiresAt,
          ":ttl": Math.ceil((expiresAt + RECORD_KEPT_MS) / 1000),
        },
      }),
    );
    if (!finished) return false;
    // A request too large for the item is in the bucket: deleted now, else by expire() and the lifecycle rule.
    await this.#s3.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: requestKey(id) })).catch(() => undefined);
    const toExpire = { pk: "JOBX", sk: sortKey(expiresAt, id) };
    // Locally both index changes in one round trip; on AWS (no BatchWriteItem granted) the to-expire entry of a job with a callbackUrl alone.
    if (this.#index) await this.#batch([{ DeleteRequest: { Key: { pk: "JOBQ", sk: sortKey(job.createdAt, id) } } }, { PutRequest: { Item: toExpire } }]);
    else if (job.callbackUrl) await this.#send(new PutCommand({ TableName: this.#table, Item: toExpire }));
    return true;
  }

  async expire(id: string): Promise<boolean> {
    const job = await this.get(id).catch(() => undefined);
    for (const key of [requestKey(id), resultKey(id)]) {
      await this.#s3.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key })).catch((error) => Promise.reject(storeError(error)));
    }
    const expired = await this.#conditional(
      new UpdateCommand({
        TableName: this.#table,
        Key: jobKey(id),
        UpdateExpression: "SET #status = :expired REMOVE body, bodyObject, statusCode, headers, encoding, #request",
        ConditionExpression: "attribute_exists(pk) AND (#status = :succeeded OR #status = :failed)",
        ExpressionAttributeNames: { "#status": "status", "#request": "request" },
        ExpressionAttributeValues: { ":expired": "expired", ":succeeded": "succeeded", ":failed": "failed" },
      }),
    );
    if (job && (this.#index || job.callbackUrl))
      await this.#send(new DeleteCommand({ TableName: this.#table, Key: { pk: "JOBX", sk: sortKey(job.expiresAt, id) } }));
    return expired;
  }

  async resultUrl(job: JobRecord, expiresInSeconds: number): Promise<string | undefined> {
    if (!job.answer || job.answer.body.length <= INLINE_RESULT_MAX_BYTES) return undefined;
    return getSignedUrl(this.#s3, new GetObjectCommand({ Bucket: this.#bucket, Key: resultKey(job.id) }), {
      expiresIn: Math.max(1, Math.floor(expiresInSeconds)),
    });
  }

  async #listed(pk: "JOBQ" | "JOBX", limit: number, before?: number): Promise<string[]> {
    const range = before === undefined ? "" : " AND sk < :before";
    const answer = await this.#send<{ Items?: Item[] }>(
      new QueryCommand({
        TableName: this.#table,
        KeyConditionExpression: `pk = :pk${range}`,
        ExpressionAttributeValues: { ":pk": pk, ...(before === undefined ? {} : { ":before": sortKey(before, "") }) },
        Limit: limit,
      }),
    );
    return (answer.Items ?? []).map((item) => String(item.sk).split("#")[1]!);
  }

  unfinished(limit: number): Promise<string[]> {
    return this.#listed("JOBQ", limit);
  }

  dueToExpire(now: number, limit: number): Promise<string[]> {
    return this.#listed("JOBX", limit, now);
  }
}

/** createJobStore is the JobStore on the key table and the uploads bucket (this file's header). */
export function createJobStore(options: JobStoreOptions): JobStore {
  return new DynamoJobStore(options);
}
