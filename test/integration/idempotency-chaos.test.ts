import { createHash, randomUUID } from "node:crypto";
import http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { AUDIT_RECORD_KEY } from "#domain/signing/pades-signer.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { startLoopbackTsa, type LoopbackTsa } from "#test/helpers/pki/loopback-tsa.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";

// Chaos through the real local server: LOGICAL sign requests, each with its own Idempotency-Key,
// each tried 3 times with the connection cut at a random point (while the body is still
// being sent, after it was sent (before, during or after the signing), while the answer arrives,
// or after it arrived and was "lost"), then retried cleanly until it gets its answer. Exactly one
// signature per key must result: the loopback TSA (B-T) counts every signing Signet made, and
// every answer a key ever got must be the same bytes, one signed PDF with one audit record per key.

// 200 by default (issue 38); CHAOS_LOGICAL=40 for a quicker run.
const LOGICAL = Number(process.env.CHAOS_LOGICAL ?? 200);
const CUT_ATTEMPTS = 3;
const CLIENTS = 8;
const SEED = Number(process.env.CHAOS_SEED ?? 20261127);

let tsa: LoopbackTsa;
let api: LocalApi;
let apiKey: string;
let input: Buffer;

beforeAll(async () => {
  tsa = await startLoopbackTsa();
  api = await startLocalApi("idempotency-chaos", {
    SIGNET_TABLE: "signet-idempotency-chaos",
    SIGNET_CONVERSION_MODE: "oneshot",
    SIGNET_TSA_URL: tsa.url,
    // The retries of one key: far over the default 60 per minute.
    SIGNET_KEY_RATE_LIMIT: "100000",
  });
  apiKey = await obtainKey(api, "chaos");
  input = await makePdf(1);
}, 90_000);

afterAll(async () => {
  await api?.close();
  await tsa?.close();
});

/** mulberry32 is a small seeded generator: a failing run is repeated with the same CHAOS_SEED. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Cut = "while-sending" | "after-sending" | "while-answering" | "answer-lost" | "none";
const CUTS: Cut[] = ["while-sending", "after-sending", "while-answering", "answer-lost"];

interface Answer {
  status: number;
  retryAfter: number;
  bytes: Buffer;
}

/** attempt sends one request on its own connection and cuts it as told; the complete answer, or undefined when cut first. */
function attempt(body: Buffer, idempotencyKey: string, cut: Cut, random: () => number): Promise<Answer | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (answer: Answer | undefined) => {
      if (settled) return;
      settled = true;
      resolve(answer);
    };
    const req = http.request(`${api.url}/v1/sign`, {
      method: "POST",
      agent: false,
      headers: {
        "content-type": "application/json",
        "content-length": body.length,
        authorization: `Bearer ${apiKey}`,
        "idempotency-key": idempotencyKey,
      },
    });
    const cutNow = () => {
      req.destroy();
      done(undefined);
    };
    req.on("error", () => done(undefined));
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        if (cut === "while-answering") cutNow();
      });
      res.on("end", () => done({ status: res.statusCode ?? 0, retryAfter: Number(res.headers["retry-after"] ?? 0), bytes: Buffer.concat(chunks) }));
      res.on("close", () => done(undefined));
    });
    if (cut === "while-sending") {
      req.write(body.subarray(0, Math.floor(random() * body.length)));
      setTimeout(cutNow, random() * 20);
      return;
    }
    req.end(body);
    // Anywhere from before the handler starts to after the answer went out.
    if (cut === "after-sending") setTimeout(cutNow, random() * 400);
  });
}

/** logicalRequest plays one client: cut attempts, then clean ones until the answer arrives; every complete answer it saw. */
async function logicalRequest(index: number, random: () => number): Promise<{ key: string; answers: Answer[] }> {
  const key = randomUUID();
  const body = Buffer.from(
    JSON.stringify({
      document: { base64: input.toString("base64") },
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
      eventId: `evt_chaos_${index}`,
    }),
  );
  const answers: Answer[] = [];
  const tries = CUT_ATTEMPTS;
  for (let i = 0; i < tries; i++) {
    const answer = await attempt(body, key, CUTS[Math.floor(random() * CUTS.length)]!, random);
    if (answer) answers.push(answer);
  }
  for (;;) {
    const answer = await attempt(body, key, "none", random);
    if (!answer) throw new Error("a clean attempt was cut");
    answers.push(answer);
    if (answer.status !== 409) return { key, answers };
    await new Promise((resolve) => setTimeout(resolve, answer.retryAfter * 1000));
  }
}

it(`${LOGICAL} sign requests, each cut ${CUT_ATTEMPTS} times at random points, sign exactly once each`, async () => {
  const random = mulberry32(SEED);
  const before = tsa.requests;
  const results: Array<{ key: string; answers: Answer[] }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < LOGICAL) {
        const index = next++;
        results.push(await logicalRequest(index, random));
      }
    }),
  );
  expect(results).toHaveLength(LOGICAL);
  const documents = new Set<string>();
  for (const { key, answers } of results) {
    const done = answers.filter((answer) => answer.status !== 409);
    expect(
      done.map((answer) => answer.status),
      key,
    ).toEqual(done.map(() => 200));
    // Every complete answer this key got is the one answer, byte for byte.
    for (const answer of done) expect(answer.bytes.equals(done[0]!.bytes), key).toBe(true);
    const pdf = Buffer.from((JSON.parse(done[0]!.bytes.toString("utf8")) as { document: { base64: string } }).document.base64, "base64");
    expect(pdf.toString("latin1").split(`/${AUDIT_RECORD_KEY}`).length - 1, `${key}: audit records`).toBe(1);
    documents.add(createHash("sha256").update(pdf).digest("hex"));
  }
  // One distinct signed PDF per key, and the TSA saw exactly one signing per key: none ran twice.
  expect(documents.size).toBe(LOGICAL);
  expect(tsa.requests - before).toBe(LOGICAL);
  const attempts = results.reduce((sum, result) => sum + result.answers.length, 0);
  console.log(`chaos seed ${SEED}: ${LOGICAL} keys, ${attempts} complete answers, ${tsa.requests - before} signings`);
  // One of them, checked by the independent validators.
  const sample = results[0]!.answers.find((answer) => answer.status === 200)!;
  await expectSignedPdf(Buffer.from((JSON.parse(sample.bytes.toString("utf8")) as { document: { base64: string } }).document.base64, "base64"), { input });
}, 900_000);
