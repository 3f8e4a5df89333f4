import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
} from "@aws-sdk/client-dynamodb";
import dynalite from "dynalite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStandIns, type StandIns } from "#local/stand-ins.ts";
import { call, getEvent, latestCode, startDynamoFaultProxy, uniqueEmail, type FaultProxy } from "#test/helpers/keys-harness.ts";
import { createDynamoKeyStore, ensureKeyTable } from "#adapters/dynamodb-key-store.ts";
import { createSesMailer } from "#adapters/sesv2-mailer.ts";
import { makeRegisterHandler } from "#functions/auth-register.ts";
import { makeVerifyHandler } from "#functions/auth-verify.ts";
import { testContainer } from "#test/helpers/container.ts";
import type { Container } from "#wiring/container.ts";

const TableName = "signet-keys-transactions";

let standIns: StandIns;
let faults: FaultProxy;
let container: Container;

beforeAll(async () => {
  standIns = await startStandIns({ sesPort: 0 });
  container = testContainer({ ...standIns.env, SIGNET_TABLE: TableName, SIGNET_REGISTER_IP_LIMIT: "1000" });
  await ensureKeyTable({ tableName: TableName, region: "us-east-1", endpoint: standIns.dynamodbEndpoint });
  faults = await startDynamoFaultProxy(standIns.dynamodbEndpoint);
});
afterAll(async () => {
  await faults?.close();
  await standIns?.close();
});

const client = () => new DynamoDBClient({ endpoint: standIns.dynamodbEndpoint, region: "us-east-1" });
const S = (value: string) => ({ S: value });

async function getItem(pk: string, sk: string) {
  const db = client();
  const out = await db.send(new GetItemCommand({ TableName, Key: { pk: S(pk), sk: S(sk) }, ConsistentRead: true }));
  db.destroy();
  return out.Item;
}

async function keysOf(email: string) {
  const db = client();
  const out = await db.send(
    new ScanCommand({ TableName, FilterExpression: "email = :e AND sk = :k", ExpressionAttributeValues: { ":e": S(email), ":k": S("KEY") } }),
  );
  db.destroy();
  return out.Items ?? [];
}

describe("the local DynamoDB stand-in's transactions", () => {
  it("dynalite alone has no TransactWriteItems (why the shim exists)", async () => {
    const bare = dynalite({ createTableMs: 0 }) as Server;
    await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
    const db = new DynamoDBClient({ endpoint: `http://127.0.0.1:${(bare.address() as AddressInfo).port}`, region: "us-east-1" });
    await db.send(
      new CreateTableCommand({
        TableName: "bare",
        AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
        KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
        BillingMode: "PAY_PER_REQUEST",
      }),
    );
    await expect(db.send(new TransactWriteItemsCommand({ TransactItems: [{ Put: { TableName: "bare", Item: { pk: S("a") } } }] }))).rejects.toMatchObject({
      name: "UnknownOperationException",
    });
    db.destroy();
    await new Promise((resolve) => bare.close(resolve));
  });

  it("applies every item or none: a failing condition on the last item undoes the earlier ones", async () => {
    const db = client();
    await db.send(new PutItemCommand({ TableName, Item: { pk: S("TX#a"), sk: S("X"), n: { N: "1" } } }));
    const error = await db
      .send(
        new TransactWriteItemsCommand({
          TransactItems: [
            { Update: { TableName, Key: { pk: S("TX#a"), sk: S("X") }, UpdateExpression: "SET n = :two", ExpressionAttributeValues: { ":two": { N: "2" } } } },
            { Put: { TableName, Item: { pk: S("TX#b"), sk: S("X") } } },
            { Delete: { TableName, Key: { pk: S("TX#c"), sk: S("X") } } },
            { ConditionCheck: { TableName, Key: { pk: S("TX#d"), sk: S("X") }, ConditionExpression: "attribute_exists(pk)" } },
          ],
        }),
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect((error as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual([
      "None",
      "None",
      "None",
      "ConditionalCheckFailed",
    ]);
    expect((await getItem("TX#a", "X"))?.n).toEqual({ N: "1" });
    expect(await getItem("TX#b", "X")).toBeUndefined();
    expect(await getItem("TX#d", "X")).toBeUndefined(); // the check left nothing behind

    await db.send(
      new TransactWriteItemsCommand({
        TransactItems: [
          {
            Update: {
              TableName,
              Key: { pk: S("TX#a"), sk: S("X") },
              UpdateExpression: "SET n = :two",
              ConditionExpression: "n = :one",
              ExpressionAttributeValues: { ":one": { N: "1" }, ":two": { N: "2" } },
            },
          },
          { Put: { TableName, Item: { pk: S("TX#b"), sk: S("X") }, ConditionExpression: "attribute_not_exists(pk)" } },
          { ConditionCheck: { TableName, Key: { pk: S("TX#a"), sk: S("Y") }, ConditionExpression: "attribute_not_exists(pk)" } },
        ],
      }),
    );
    expect((await getItem("TX#a", "X"))?.n).toEqual({ N: "2" });
    expect(await getItem("TX#b", "X")).toBeDefined();
    expect(await getItem("TX#a", "Y")).toBeUndefined();
    db.destroy();
  });

  it("serializes concurrent transactions on one item: exactly one of 20 conditional claims wins", async () => {
    const db = client();
    await db.send(new PutItemCommand({ TableName, Item: { pk: S("TX#race"), sk: S("X") } }));
    const claims = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        db.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                Update: {
                  TableName,
                  Key: { pk: S("TX#race"), sk: S("X") },
                  UpdateExpression: "SET claimedBy = :me",
                  ConditionExpression: "attribute_not_exists(claimedBy)",
                  ExpressionAttributeValues: { ":me": S(`c${i}`) },
                },
              },
              { Put: { TableName, Item: { pk: S(`TX#won-${i}`), sk: S("X") } } },
            ],
          }),
        ),
      ),
    );
    expect(claims.filter((claim) => claim.status === "fulfilled")).toHaveLength(1);
    const winner = String((await getItem("TX#race", "X"))?.claimedBy?.S).slice(1);
    for (let i = 0; i < 20; i++) expect(await getItem(`TX#won-${i}`, "X"), `claim ${i}`).toEqual(String(i) === winner ? expect.anything() : undefined);
    db.destroy();
  });
});

describe("a code is unused or has minted exactly one key", () => {
  const limits = {
    perAddress: { limit: 3, windowSeconds: 900 },
    perAddressDaily: { limit: 10, windowSeconds: 86_400 },
    perIp: { limit: 1000, windowSeconds: 3600 },
  };
  const verifyThrough = (endpoint: string) =>
    makeVerifyHandler(container, {
      store: createDynamoKeyStore({ tableName: TableName, region: "us-east-1", endpoint }),
      mailer: createSesMailer({ sender: "noreply@signet.local", region: "us-east-1", endpoint: standIns.sesEndpoint }),
      now: Date.now,
    });
  const registerThrough = (endpoint: string) =>
    makeRegisterHandler(container, {
      store: createDynamoKeyStore({ tableName: TableName, region: "us-east-1", endpoint }),
      mailer: createSesMailer({ sender: "noreply@signet.local", region: "us-east-1", endpoint: standIns.sesEndpoint }),
      now: Date.now,
      limits,
    });

  it("a verify cut off while the key is written leaves the code unused: the retry mints the one key", async () => {
    const email = uniqueEmail("cut");
    expect((await call(registerThrough(standIns.dynamodbEndpoint), getEvent("/v1/auth/register", { email }))).status).toBe(200);
    const code = await latestCode(standIns.sesEndpoint, email);
    const verify = verifyThrough(faults.endpoint);

    // Every write that carries the new key is cut before it arrives, as a crash at that point would.
    faults.arm((operation, body) => operation !== "GetItem" && body.includes('"KEY#'));
    const cut = await call(verify, getEvent("/v1/auth/verify", { email, code }));
    faults.disarm();
    expect(faults.dropped()).toBeGreaterThan(0);
    expect(cut.status, JSON.stringify(cut.json)).toBe(503);
    expect(cut.json.code).toBe("SERVICE_UNAVAILABLE");
    expect((await getItem(`CODE#${email}`, "CODE"))?.consumedAt).toBeUndefined();
    expect(await keysOf(email)).toHaveLength(0);

    const retried = await call(verify, getEvent("/v1/auth/verify", { email, code }));
    expect(retried.status, JSON.stringify(retried.json)).toBe(200);
    const keys = await keysOf(email);
    expect(keys).toHaveLength(1);
    expect((await getItem(`CODE#${email}`, "CODE"))?.keyId).toEqual(keys[0]!.keyId);
    expect((await call(verify, getEvent("/v1/auth/verify", { email, code }))).json.code).toBe("CODE_EXPIRED");
  });

  it("a key write refused inside the transaction (a hash that exists) leaves the code unused", async () => {
    const email = uniqueEmail("clash");
    expect((await call(registerThrough(standIns.dynamodbEndpoint), getEvent("/v1/auth/register", { email }))).status).toBe(200);
    const store = createDynamoKeyStore({ tableName: TableName, region: "us-east-1", endpoint: standIns.dynamodbEndpoint });
    const code = await store.getCode(email);
    const now = Date.now();
    const record = { keyHash: "f".repeat(64), keyId: "key_clash", email, createdAt: new Date(now).toISOString(), lastUsedAt: new Date(now).toISOString() };
    const db = client();
    await db.send(
      new PutItemCommand({ TableName, Item: { pk: S(`KEY#${record.keyHash}`), sk: S("KEY"), keyId: S("key_other"), email: S("other@example.com") } }),
    );
    db.destroy();
    const link = { tokenHash: "e".repeat(64), keyHash: record.keyHash, expiresAt: now + 60_000 };
    await expect(store.mintKey({ address: email, codeId: code!.codeId, now }, record, link)).rejects.toThrow();
    expect((await store.getCode(email))?.consumedAt).toBeUndefined();
    expect((await getItem(`KEY#${record.keyHash}`, "KEY"))?.email).toEqual(S("other@example.com"));
  });

  it("20 concurrent verifies with the right code through the transaction mint exactly one key", async () => {
    const email = uniqueEmail("txrace");
    expect((await call(registerThrough(standIns.dynamodbEndpoint), getEvent("/v1/auth/register", { email }))).status).toBe(200);
    const code = await latestCode(standIns.sesEndpoint, email);
    const verify = verifyThrough(standIns.dynamodbEndpoint);
    const results = await Promise.all(Array.from({ length: 20 }, () => call(verify, getEvent("/v1/auth/verify", { email, code }))));
    expect(results.filter((result) => result.status === 200)).toHaveLength(1);
    expect(results.filter((result) => result.json.code === "CODE_EXPIRED")).toHaveLength(19);
    expect(await keysOf(email)).toHaveLength(1);
  });
});
