// POST /v1/split with output "uploads" through the local server (issue 40, item 2): the parts are
// kept in the uploads store (the S3 stand-in) as uploads of the calling key, so each id goes
// straight into sign or merge as document.upload for that key, and is an unknown upload for any
// other key. Outputs checked with poppler (pdfinfo, pdftotext) and pdfsig.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfPageCount, pdfsig, pdfText } from "#test/helpers/pdf-tools.ts";
import { toolPdf } from "#test/helpers/tool-pdfs.ts";

let api: LocalApi;
let key: string;
let otherKey: string;
let source: Buffer;

beforeAll(async () => {
  api = await startLocalApi("split-uploads", { SIGNET_TABLE: "signet-split-uploads" });
  key = await obtainKey(api, "split-uploads");
  otherKey = await obtainKey(api, "split-uploads-other");
  source = await toolPdf("Alpha", 3);
}, 180_000);

afterAll(async () => {
  await api?.close();
});

interface Part {
  upload: string;
  pages: number[];
  pageCount: number;
  bytes: number;
  expiresAt: string;
}

async function split(body: unknown, idempotencyKey: string): Promise<{ status: number; replayed: string | null; text: string }> {
  const response = await fetch(`${api.url}/v1/split`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Idempotency-Key": idempotencyKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, replayed: response.headers.get("idempotent-replayed"), text: await response.text() };
}

const signBody = (upload: string) => ({
  document: { upload },
  signer: { name: "Ada Lovelace", email: "ada@example.com" },
  auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
});

describe('POST /v1/split with output "uploads"', () => {
  it("keeps each part as an upload of the caller: sign and merge take the ids, another key gets 404, a replay the same ids", async () => {
    const body = { document: { base64: source.toString("base64") }, ranges: ["1", "2-3", "3"], output: "uploads" };
    const first = await split(body, "split-uploads-1");
    expect(first.status, first.text.slice(0, 300)).toBe(200);
    const { parts, droppedSignatures } = JSON.parse(first.text) as { parts: Part[]; droppedSignatures: string[] };
    expect(droppedSignatures).toEqual([]);
    expect(parts.map((part) => [part.pages, part.pageCount])).toEqual([
      [[1], 1],
      [[2, 3], 2],
      [[3], 1],
    ]);
    for (const part of parts) {
      expect(part.upload).toMatch(/^upl_[0-9a-z]+_[0-9a-f]{16}_[A-Za-z0-9_-]{22}$/);
      expect(part.bytes).toBeGreaterThan(300);
      const minutes = (Date.parse(part.expiresAt) - Date.now()) / 60_000;
      expect(minutes).toBeGreaterThan(50);
      expect(minutes).toBeLessThanOrEqual(60);
    }

    // The same request with the same Idempotency-Key: the kept answer, the same ids.
    const replay = await split(body, "split-uploads-1");
    expect(replay.status).toBe(200);
    expect(replay.replayed).toBe("true");
    expect(replay.text).toBe(first.text);

    // Another key: the answer any unknown upload gets, and the part stays usable by its owner.
    const foreign = await api.postJson("/v1/sign", signBody(parts[1]!.upload), otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toMatchObject({ code: "NOT_FOUND", details: [{ field: "document.upload", issue: "unknown upload" }] });

    const signed = await api.postJson("/v1/sign", signBody(parts[1]!.upload), key);
    expect(signed.status, JSON.stringify(signed.json).slice(0, 300)).toBe(200);
    const pdf = Buffer.from(signed.json.document.base64 as string, "base64");
    const text = await pdfText(pdf, { first: 1, last: 2 });
    expect(text).toContain("Alpha page 2");
    expect(text).toContain("Alpha page 3");
    expect(text).not.toContain("Alpha page 1");
    // Part 2's two pages, then the certificate page sign adds.
    expect(await pdfPageCount(pdf)).toBe(3);
    expect((await pdfsig(pdf)).map((signature) => signature.text).join("\n")).toMatch(/Signature is Valid/);

    const merged = await api.postJson(
      "/v1/merge",
      { documents: [{ document: { upload: parts[2]!.upload } }, { document: { upload: parts[0]!.upload } }] },
      key,
    );
    expect(merged.status, JSON.stringify(merged.json).slice(0, 300)).toBe(200);
    const joined = Buffer.from(merged.json.document.base64 as string, "base64");
    expect(await pdfPageCount(joined)).toBe(2);
    expect((await pdfText(joined)).replace(/\s+/g, " ")).toMatch(/Alpha page 3.*Alpha page 1/);
  }, 120_000);

  it("answers the zip without output, and refuses an unknown output", async () => {
    const zip = await fetch(`${api.url}/v1/split`, {
      method: "POST",
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ document: { base64: source.toString("base64") }, every: 2 }),
    });
    expect(zip.status).toBe(200);
    expect(zip.headers.get("content-type")).toBe("application/zip");
    const wrong = await api.postJson("/v1/split", { document: { base64: source.toString("base64") }, every: 2, output: "s3" }, key);
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(wrong.json.details)).toContain("output");
  });
});
