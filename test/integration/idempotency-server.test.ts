import { randomBytes, randomUUID } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { PDFDocument } from "pdf-lib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { startLoopbackTsa, type LoopbackTsa } from "#test/helpers/pki/loopback-tsa.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";
import { idempotencyScope, requestFingerprint } from "#domain/shared/idempotency.ts";
import { idempotencyDeps } from "#wiring/idempotency.ts";

// Idempotency-Key through the real local server: dynalite keeps the records, the S3 stand-in the
// large answers. Sign runs B-T against a loopback TSA, so the TSA's request count is the number of
// signatures actually made (each one a signing with its own audit record), independent of Signet.

let tsa: LoopbackTsa;
let api: LocalApi;
let keyA: string;
let keyB: string;
let input: Buffer;
/** The TSA holds each reply until the test lets it go (set per test; none: it answers at once). */
let gate: { arrived: () => void; release: Promise<void> } | undefined;
/** The TSA answers garbage while set: a 502 TSA_FAILED, nothing signed. */
let tsaBroken = false;

beforeAll(async () => {
  tsa = await startLoopbackTsa({
    hold: async () => {
      const held = gate;
      held?.arrived();
      await held?.release;
    },
    tamper: (reply) => (tsaBroken ? Buffer.from("not a timestamp reply") : reply),
  });
  api = await startLocalApi("idempotency", { SIGNET_TABLE: "signet-idempotency", SIGNET_CONVERSION_MODE: "oneshot", SIGNET_TSA_URL: tsa.url });
  keyA = await obtainKey(api, "idem-a");
  keyB = await obtainKey(api, "idem-b");
  input = await makePdf(1);
}, 90_000);

// A test that failed while the TSA held a reply must not hold the next tests' replies.
let releaseHeld: (() => void) | undefined;
afterEach(() => {
  releaseHeld?.();
  tsaBroken = false;
});

afterAll(async () => {
  await api?.close();
  await tsa?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  bytes: Buffer;
  json: () => Record<string, any>;
}

/** send POSTs exact body bytes with the given headers and keeps the answer's bytes. */
async function send(path: string, body: Buffer | string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(`${api.url}${path}`, { method: "POST", headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, bytes, json: () => JSON.parse(bytes.toString("utf8")) as Record<string, any> };
}

const signBody = (document: Buffer, submit = true) =>
  JSON.stringify({
    document: { base64: document.toString("base64") },
    signer: { name: "Ada Lovelace", email: "ada@example.com" },
    auditTrail: [{ type: "ready", timestamp: "2026-11-22T09:55:00Z" }, ...(submit ? [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }] : [])],
  });

const sign = (body: string, idempotencyKey?: string, key = keyA) =>
  send("/v1/sign", body, {
    "content-type": "application/json",
    authorization: `Bearer ${key}`,
    ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
  });

/** holdTsa makes the next timestamp query wait; `arrived` resolves once one is waiting, `release` lets it go. */
function holdTsa(): { arrived: Promise<void>; release: () => void } {
  let arrived!: () => void;
  let release!: () => void;
  const arrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  gate = { arrived, release: new Promise<void>((resolve) => (release = resolve)) };
  releaseHeld = () => {
    gate = undefined;
    release();
  };
  return { arrived: arrival, release: releaseHeld };
}

describe("Idempotency-Key on POST /v1/sign", () => {
  it("replays the first answer byte for byte, marked Idempotent-Replayed, without signing again", async () => {
    const key = randomUUID();
    const body = signBody(input);
    const before = tsa.requests;
    const first = await sign(body, key);
    expect(first.status).toBe(200);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    await expectSignedPdf(Buffer.from(first.json().document.base64 as string, "base64"), { input });
    const again = await sign(body, key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(again.headers.get("content-length")).toBe(first.headers.get("content-length"));
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    // Each request keeps its own id; the answer is the first one's.
    expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    expect(tsa.requests).toBe(before + 1);
  }, 60_000);

  it("refuses the same key for another body with 422 IDEMPOTENCY_KEY_REUSED, and still replays the first", async () => {
    const key = randomUUID();
    const first = await sign(signBody(input), key);
    expect(first.status).toBe(200);
    const before = tsa.requests;
    const other = await sign(signBody(await makePdf(2)), key);
    expect(other.status).toBe(422);
    expect(other.json()).toMatchObject({ code: "IDEMPOTENCY_KEY_REUSED", error: "Unprocessable Entity" });
    // Another path with the same key is another request too.
    const elsewhere = await send("/v1/timestamp", JSON.stringify({ document: { base64: input.toString("base64") } }), {
      "content-type": "application/json",
      authorization: `Bearer ${keyA}`,
      "idempotency-key": key,
    });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.json().code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(tsa.requests).toBe(before);
    const replay = await sign(signBody(input), key);
    expect(replay.bytes.equals(first.bytes)).toBe(true);
  }, 60_000);

  it("answers 409 IDEMPOTENCY_KEY_IN_USE with Retry-After while the first request still runs, then its answer", async () => {
    const key = randomUUID();
    const body = signBody(input);
    const held = holdTsa();
    const firstCall = sign(body, key);
    await held.arrived; // the first request is signing, waiting on the TSA
    const during = await sign(body, key);
    expect(during.status).toBe(409);
    expect(during.json()).toMatchObject({ code: "IDEMPOTENCY_KEY_IN_USE", error: "Conflict" });
    expect(Number(during.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    held.release();
    const first = await firstCall;
    expect(first.status).toBe(200);
    const after = await sign(body, key);
    expect(after.headers.get("idempotent-replayed")).toBe("true");
    expect(after.bytes.equals(first.bytes)).toBe(true);
  }, 60_000);

  it("keeps keys of different API keys apart: the same Idempotency-Key and body sign twice", async () => {
    const key = randomUUID();
    const body = signBody(input);
    const before = tsa.requests;
    const a = await sign(body, key, keyA);
    const b = await sign(body, key, keyB);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(b.bytes.equals(a.bytes)).toBe(false);
    expect(tsa.requests).toBe(before + 2);
    // Each caller's own retry gets its own answer.
    expect((await sign(body, key, keyB)).bytes.equals(b.bytes)).toBe(true);
    expect((await sign(body, key, keyA)).bytes.equals(a.bytes)).toBe(true);
  }, 60_000);

  it("without the header signs every time, as before", async () => {
    const body = signBody(input);
    const before = tsa.requests;
    const [one, two] = [await sign(body), await sign(body)];
    expect([one.status, two.status]).toEqual([200, 200]);
    expect(one.headers.get("idempotent-replayed")).toBeNull();
    expect(two.bytes.equals(one.bytes)).toBe(false);
    expect(tsa.requests).toBe(before + 2);
  }, 60_000);

  it("keeps a 422 from the work (same answer again), but not a 502: a retry after a failure runs again", async () => {
    const rejected = randomUUID();
    const noSubmit = signBody(input, false);
    const first = await sign(noSubmit, rejected);
    expect(first.status).toBe(422);
    expect(first.json().code).toBe("MISSING_SUBMIT_EVENT");
    const again = await sign(noSubmit, rejected);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.bytes.equals(first.bytes)).toBe(true);

    const failed = randomUUID();
    const body = signBody(input);
    tsaBroken = true;
    try {
      expect((await sign(body, failed)).json().code).toBe("TSA_FAILED");
    } finally {
      tsaBroken = false;
    }
    const before = tsa.requests;
    const retry = await sign(body, failed);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(tsa.requests).toBe(before + 1);
  }, 60_000);

  it.each([
    ["256 characters", "k".repeat(256)],
    ["a control character", "abc\tdef"],
  ])("refuses a key of %s with 400 VALIDATION_ERROR, before any work", async (_name, key) => {
    const before = tsa.requests;
    const answer = await sign(signBody(input), key);
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ code: "VALIDATION_ERROR", details: [{ field: "header.idempotency-key" }] });
    expect(tsa.requests).toBe(before);
  });

  it("accepts 255 printable characters, spaces and symbols included", async () => {
    const key = `${"~ !".repeat(85)}`;
    const first = await sign(signBody(input), key);
    expect(first.status).toBe(200);
    expect((await sign(signBody(input), key)).headers.get("idempotent-replayed")).toBe("true");
  }, 60_000);

  it("keeps an answer over 300 KB in the S3 stand-in under idempotency/, and replays it from there", async () => {
    const doc = await PDFDocument.load(input);
    await doc.attach(randomBytes(400 * 1024), "payload.bin", { mimeType: "application/octet-stream" });
    const large = Buffer.from(await doc.save());
    const key = randomUUID();
    const body = signBody(large);
    const objects = () => readdirSync(join(api.dataDir, "s3", "signet-uploads")).filter((name) => name.startsWith(encodeURIComponent("idempotency/")));
    const before = objects().length;
    const first = await sign(body, key);
    expect(first.status).toBe(200);
    expect(first.bytes.length).toBeGreaterThan(500 * 1024);
    expect(objects().length).toBe(before + 1);
    const again = await sign(body, key);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.bytes.equals(first.bytes)).toBe(true);
  }, 60_000);
});

describe("Idempotency-Key on a binary answer (POST /v1/convert)", () => {
  it("replays the converted file byte for byte, with its Content-Disposition", async () => {
    const docx = buildDocx({ body: p(run("Idempotent conversion")) });
    // Fixed multipart bytes: a retry must send the same body, boundary included.
    const boundary = "signet-idempotency-boundary";
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="letter.docx"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      docx,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const headers = { "content-type": `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${keyA}`, "idempotency-key": randomUUID() };
    const first = await send("/v1/convert?from=docx", body, headers);
    expect(first.status).toBe(200);
    expect(first.bytes.subarray(0, 5).toString()).toBe("%PDF-");
    const again = await send("/v1/convert?from=docx", body, headers);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.bytes.equals(first.bytes)).toBe(true);
    expect(again.headers.get("content-disposition")).toBe(first.headers.get("content-disposition"));
    expect(again.headers.get("content-type")).toBe("application/pdf");
    // The query is part of the request: to=docx with the same key is another request.
    const otherQuery = await send("/v1/convert?from=docx&to=docx", body, headers);
    expect(otherQuery.status).toBe(422);
    expect(otherQuery.json().code).toBe("IDEMPOTENCY_KEY_REUSED");
  }, 90_000);
});

describe("a first run that died (a Lambda time-out)", () => {
  it("holds its key until its lock passes; then a retry runs, and the dead run can no longer keep an answer", async () => {
    const store = idempotencyDeps(api.container).store!;
    const listed = (await (await fetch(`${api.url}/v1/keys`, { headers: { authorization: `Bearer ${keyA}` } })).json()) as {
      keys: Array<{ id: string; current: boolean }>;
    };
    const keyId = listed.keys.find((entry) => entry.current)!.id;
    const key = randomUUID();
    const body = signBody(input);
    const scope = idempotencyScope(keyId, key);
    const fingerprint = requestFingerprint({ method: "POST", path: "/v1/sign", query: {}, body: Buffer.from(body) });
    const now = Date.now();
    const day = 24 * 60 * 60 * 1000;
    // A run that claimed the key and then died, its lock running one more minute.
    expect(await store.claim({ scope, fingerprint, lockToken: "dead", now, lockExpiresAt: now + 60_000, expiresAt: now + day })).toBe("claimed");
    const blocked = await sign(body, key);
    expect(blocked.status).toBe(409);
    expect(blocked.json().code).toBe("IDEMPOTENCY_KEY_IN_USE");
    // Another dead run takes it over once that lock has passed (the store's clock moved on); its own lock is already over.
    expect(await store.claim({ scope, fingerprint, lockToken: "dead-too", now: now + 60_001, lockExpiresAt: now - 1, expiresAt: now + day })).toBe("claimed");
    const before = tsa.requests;
    const retry = await sign(body, key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(tsa.requests).toBe(before + 1);
    // The dead run coming back cannot replace the answer the retry kept.
    const stale = { statusCode: 200, headers: {}, encoding: "text" as const, body: Buffer.from("{}") };
    expect(await store.complete(scope, "dead-too", stale, now + day)).toBe(false);
    expect((await sign(body, key)).bytes.equals(retry.bytes)).toBe(true);
    // A day after the retry the key is free again (TTL deletes late: the claim checks the time itself).
    expect(
      await store.claim({
        scope,
        fingerprint: "another",
        lockToken: "later",
        now: now + day + 60_000,
        lockExpiresAt: now + day + 120_000,
        expiresAt: now + 2 * day,
      }),
    ).toBe("claimed");
  }, 60_000);
});
