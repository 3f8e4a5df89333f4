/**
 * A TransactWriteItems shim in front of dynalite, which lacks the call (dynalite 4.0 answers
 * UnknownOperationException). Every other call is passed through unchanged. The shim makes the
 * same adapter code run locally as on AWS: a transaction's items (Put, Update, Delete,
 * ConditionCheck, each with its own condition) apply all or none.
 *
 * How: a readers-writer lock over the whole stand-in. Ordinary calls share it; a transaction takes
 * it alone, so no other call sees or interleaves with its steps. Inside, it snapshots every target
 * item, applies the items one by one as single-item calls with their conditions, and on the first
 * failure puts every snapshot back and answers TransactionCanceledException with one cancellation
 * reason per item, as DynamoDB does. Atomic for this one process (the local server); a crash of
 * the process mid-transaction is not covered (dynalite itself has no journal for it).
 */
import http, { type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { guardStandIn } from "#local/host-guard.ts";

type Json = Record<string, unknown>;
type Release = () => void;

/** RwLock lets many shared holders or one exclusive holder in, first come first served. */
class RwLock {
  private readers = 0;
  private writer = false;
  private readonly waiting: Array<{ exclusive: boolean; grant: () => void }> = [];

  acquire(exclusive: boolean): Promise<Release> {
    return new Promise((resolve) => {
      this.waiting.push({
        exclusive,
        grant: () => {
          let released = false;
          resolve(() => {
            if (released) return;
            released = true;
            if (exclusive) this.writer = false;
            else this.readers--;
            this.pump();
          });
        },
      });
      this.pump();
    });
  }

  private pump(): void {
    while (this.waiting.length > 0 && !this.writer) {
      const next = this.waiting[0]!;
      if (next.exclusive && this.readers > 0) return;
      this.waiting.shift();
      if (next.exclusive) this.writer = true;
      else this.readers++;
      next.grant();
      if (next.exclusive) return;
    }
  }
}

/** DynamoAnswer is one answer of the JSON protocol: status and parsed body. */
interface DynamoAnswer {
  status: number;
  body: Json;
  raw: Buffer;
  headers: http.IncomingHttpHeaders;
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

const TARGET_PREFIX = "DynamoDB_20120810.";
const errorType = (body: Json) =>
  String(body.__type ?? "")
    .split("#")
    .pop() ?? "";

/** Step is one transaction item as the single-item call that applies it, with the item's key. */
interface Step {
  operation: "PutItem" | "UpdateItem" | "DeleteItem";
  params: Json;
  table: string;
  key: Json;
  returnOld: boolean;
  /** A ConditionCheck: applied as a no-op update under its condition, whose side effect is undone at once. */
  check: boolean;
}

/** Answer is what the shim sends back for a transaction. */
interface Answer {
  status: number;
  body: Json;
}

/** TransactionValidationError is a transaction DynamoDB refuses before running it (ValidationException). */
class TransactionValidationError extends Error {
  override readonly name = "TransactionValidationError";
}

/** StoreAnswerError carries dynalite's own failure answer of a step, passed on unchanged. */
class StoreAnswerError extends Error {
  override readonly name = "StoreAnswerError";
  constructor(readonly answer: Answer) {
    super(`dynalite answered ${answer.status}`);
  }
}

const operations: Record<string, Step["operation"]> = { Put: "PutItem", Update: "UpdateItem", Delete: "DeleteItem", ConditionCheck: "UpdateItem" };
const CHECK_ATTRIBUTE = "#signetTxCheck";

/** cancelled is DynamoDB's TransactionCanceledException with one reason per item, the failed one at `index`. */
function cancelled(steps: Step[], index: number, before: Array<Json | undefined>): Answer {
  const reasons = steps.map((other, i) =>
    i === index
      ? { Code: "ConditionalCheckFailed", Message: "The conditional request failed", ...(other.returnOld && before[i] ? { Item: before[i] } : {}) }
      : { Code: "None" },
  );
  return {
    status: 400,
    body: {
      __type: "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
      message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(", ")}]`,
      CancellationReasons: reasons,
    },
  };
}

/**
 * TransactionShim forwards every call to dynalite (at target) under a readers-writer lock and runs
 * TransactWriteItems itself, exclusively: plan the steps, snapshot their items, apply them one by
 * one, and on the first failure restore the snapshots.
 */
class TransactionShim {
  readonly #target: URL;
  readonly #lock = new RwLock();
  readonly #keySchemas = new Map<string, string[]>();

  constructor(target: string) {
    this.#target = new URL(target);
  }

  /** handle answers one request: a transaction here, anything else passed through unchanged. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readAll(req);
    const operation = String(req.headers["x-amz-target"] ?? "").replace(TARGET_PREFIX, "");
    const exclusive = operation === "TransactWriteItems";
    const release = await this.#lock.acquire(exclusive);
    try {
      if (exclusive) {
        const answer = await this.#transact(req.headers, JSON.parse(body.toString("utf8")) as Json);
        res.writeHead(answer.status, { "content-type": "application/x-amz-json-1.0" });
        res.end(JSON.stringify(answer.body));
        return;
      }
      const answer = await this.#send(req.headers, operation, body);
      const headers = { ...answer.headers };
      delete headers["transfer-encoding"];
      res.writeHead(answer.status, headers);
      res.end(answer.raw);
    } finally {
      release();
    }
  }

  /** send makes one call to dynalite; `headers` are the caller's (dynalite checks their form, not the signature). */
  #send(headers: http.IncomingHttpHeaders, operation: string, body: Buffer | Json): Promise<DynamoAnswer> {
    const payload = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const url = this.#target;
    const outHeaders: http.OutgoingHttpHeaders = {
      ...headers,
      host: url.host,
      "x-amz-target": `${TARGET_PREFIX}${operation}`,
      "content-length": payload.length,
    };
    delete outHeaders["content-encoding"];
    return new Promise((resolve, reject) => {
      const req = http.request({ hostname: url.hostname, port: url.port, path: "/", method: "POST", headers: outHeaders }, (res) => {
        readAll(res).then((raw) => {
          let parsed: Json = {};
          try {
            parsed = raw.length > 0 ? (JSON.parse(raw.toString("utf8")) as Json) : {};
          } catch {
            // not JSON (a dynalite crash page): passed on as bytes
          }
          resolve({ status: res.statusCode ?? 500, body: parsed, raw, headers: res.headers });
        }, reject);
      });
      req.on("error", reject);
      req.end(payload);
    });
  }

  async #keyAttributes(headers: http.IncomingHttpHeaders, table: string): Promise<string[]> {
    const known = this.#keySchemas.get(table);
    if (known) return known;
    const described = await this.#send(headers, "DescribeTable", { TableName: table });
    const schema = ((described.body.Table as Json | undefined)?.KeySchema as Array<{ AttributeName: string }> | undefined) ?? [];
    const names = schema.map((entry) => entry.AttributeName);
    if (names.length > 0) this.#keySchemas.set(table, names);
    return names;
  }

  /** plan turns the transaction's items into steps; TransactionValidationError for what DynamoDB refuses up front. */
  async #plan(headers: http.IncomingHttpHeaders, items: Json[]): Promise<Step[]> {
    if (items.length === 0 || items.length > 100) throw new TransactionValidationError("TransactItems must hold 1 to 100 items");
    const steps: Step[] = [];
    for (const entry of items) {
      const [kind, spec] = Object.entries(entry)[0] as [string, Json];
      const operation = operations[kind];
      if (!operation) throw new TransactionValidationError(`Unknown transaction item ${kind}`);
      const table = String(spec.TableName);
      const names = await this.#keyAttributes(headers, table);
      const key = kind === "Put" ? Object.fromEntries(names.map((name) => [name, (spec.Item as Json)[name]])) : (spec.Key as Json);
      const { ReturnValuesOnConditionCheckFailure, ...params } = spec;
      const check = kind === "ConditionCheck";
      // A check is a no-op update under the condition: it may create a bare item, which its snapshot undoes.
      const applied = check
        ? {
            ...params,
            UpdateExpression: `REMOVE ${CHECK_ATTRIBUTE}`,
            ExpressionAttributeNames: { ...(params.ExpressionAttributeNames as Json | undefined), [CHECK_ATTRIBUTE]: "signetTxCheck" },
          }
        : params;
      steps.push({ operation, params: applied, table, key, returnOld: ReturnValuesOnConditionCheckFailure === "ALL_OLD", check });
    }
    const seen = new Set(steps.map((step) => `${step.table}\u0000${JSON.stringify(step.key)}`));
    if (seen.size !== steps.length) throw new TransactionValidationError("Transaction request cannot include multiple operations on one item");
    return steps;
  }

  /** snapshot reads every step's item as it is before the transaction (undefined: absent). */
  async #snapshot(headers: http.IncomingHttpHeaders, steps: Step[]): Promise<Array<Json | undefined>> {
    const before: Array<Json | undefined> = [];
    for (const step of steps) {
      const got = await this.#send(headers, "GetItem", { TableName: step.table, Key: step.key, ConsistentRead: true });
      if (got.status !== 200) throw new StoreAnswerError({ status: got.status, body: got.body });
      before.push(got.body.Item as Json | undefined);
    }
    return before;
  }

  /** restore puts a step's item back as it was (or deletes it when it was absent). */
  async #restore(headers: http.IncomingHttpHeaders, step: Step, old: Json | undefined): Promise<void> {
    await (old
      ? this.#send(headers, "PutItem", { TableName: step.table, Item: old })
      : this.#send(headers, "DeleteItem", { TableName: step.table, Key: step.key }));
  }

  /** transact runs a TransactWriteItems request all-or-nothing; the answer to send back. */
  async #transact(headers: http.IncomingHttpHeaders, request: Json): Promise<Answer> {
    try {
      const steps = await this.#plan(headers, (request.TransactItems as Json[] | undefined) ?? []);
      const before = await this.#snapshot(headers, steps);
      for (const [index, step] of steps.entries()) {
        const answer = await this.#send(headers, step.operation, { TableName: step.table, ...step.params });
        if (answer.status === 200) {
          if (step.check) await this.#restore(headers, step, before[index]); // undo the check's side effect now
          continue;
        }
        for (let i = index; i >= 0; i--) await this.#restore(headers, steps[i]!, before[i]);
        if (errorType(answer.body) !== "ConditionalCheckFailedException") return { status: answer.status, body: answer.body };
        return cancelled(steps, index, before);
      }
      return { status: 200, body: {} };
    } catch (error) {
      if (error instanceof TransactionValidationError)
        return { status: 400, body: { __type: "com.amazon.coral.validate#ValidationException", message: error.message } };
      if (error instanceof StoreAnswerError) return error.answer;
      throw error;
    }
  }
}

/** startTransactionShim serves dynalite (at target) with TransactWriteItems added, on 127.0.0.1. */
export async function startTransactionShim(target: string, port = 0): Promise<{ server: Server; port: number }> {
  const shim = new TransactionShim(target);
  const server = http.createServer((req, res) => {
    shim.handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      res.writeHead(500, { "content-type": "application/x-amz-json-1.0" });
      res.end(JSON.stringify({ __type: "com.amazonaws.dynamodb.v20120810#InternalServerError", message: (error as Error).message }));
    });
  });
  guardStandIn(server, "DynamoDB");
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
