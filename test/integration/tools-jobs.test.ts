import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JobView, submitJob, waitForJob } from "#test/helpers/jobs.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { qpdfShowEncryption } from "#test/helpers/pdf-passwords.ts";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { pdfPageCount } from "#test/helpers/pdf-tools.ts";

// The PDF tools take Prefer: respond-async like every POST that does work (issue 38): through the
// real local server, a job runs the route's own handler and its answer is the job's result.

let api: LocalApi;
let key: string;

beforeAll(async () => {
  api = await startLocalApi("tools-jobs", { SIGNET_TABLE: "signet-tools-jobs", SIGNET_KEY_RATE_LIMIT: "100000" });
  key = await obtainKey(api, "tools-jobs");
}, 120_000);

afterAll(async () => {
  await api?.close();
});

/** resultPdf is the PDF of a succeeded tool job's answer, fetched as the job says: presigned URL or inline. */
async function resultPdf(job: JobView): Promise<Buffer> {
  expect(job.status, JSON.stringify(job.error)).toBe("succeeded");
  expect(job.result).toMatchObject({ statusCode: 200, contentType: expect.stringMatching(/^application\/json/) });
  const answer = (job.result!.url ? await (await fetch(job.result!.url)).json() : job.result!.body) as { document: { base64: string } };
  return Buffer.from(answer.document.base64, "base64");
}

/** runToolJob submits a tool request as a job (202 expected) and waits for it to end. */
async function runToolJob(path: string, body: unknown): Promise<JobView> {
  const submitted = await submitJob(api, path, body, key);
  expect(submitted.status, JSON.stringify(submitted.json).slice(0, 200)).toBe(202);
  expect(submitted.headers.get("location")).toBe(`/v1/jobs/${submitted.json.id}`);
  return waitForJob(api, submitted.json.id, key);
}

describe("PDF tools with Prefer: respond-async", () => {
  it("merge: 202, the job succeeds with the merged PDF of 2 + 3 pages (pdfinfo)", async () => {
    const [first, second] = await Promise.all([makePdf(2), makePdf(3)]);
    const job = await runToolJob("/v1/merge", {
      documents: [{ document: { base64: first.toString("base64") } }, { document: { base64: second.toString("base64") } }],
    });
    expect(job.route).toBe("merge");
    expect(await pdfPageCount(await resultPdf(job))).toBe(5);
  }, 60_000);

  it("protect: 202, the job succeeds with an AES-256 encrypted PDF (qpdf --show-encryption)", async () => {
    const input = await makePdf(1);
    const job = await runToolJob("/v1/protect", { document: { base64: input.toString("base64") }, ownerPassword: "owner-secret", userPassword: "open-sesame" });
    expect(job.route).toBe("protect");
    const pdf = await resultPdf(job);
    expect(await qpdfShowEncryption(pdf, "open-sesame")).toMatch(/R = 6[\s\S]*stream encryption method: AESv3/);
    expect(await pdfPageCount(pdf).catch(() => undefined)).not.toBe(1); // without the password poppler cannot open it
  }, 60_000);

  it('split with output "uploads": the job keeps the parts as uploads of the submitting key, which merge then takes', async () => {
    const input = await makePdf(3);
    const job = await runToolJob("/v1/split", { document: { base64: input.toString("base64") }, ranges: ["1", "2-3"], output: "uploads" });
    expect(job.status, JSON.stringify(job.error)).toBe("succeeded");
    const { parts } = job.result!.body as { parts: Array<{ upload: string; pageCount: number }> };
    expect(parts.map((part) => part.pageCount)).toEqual([1, 2]);
    const merged = await fetch(`${api.url}/v1/merge`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ documents: [...parts].reverse().map((part) => ({ document: { upload: part.upload } })) }),
    });
    expect(merged.status).toBe(200);
    const answer = (await merged.json()) as { document: { base64: string } };
    expect(await pdfPageCount(Buffer.from(answer.document.base64, "base64"))).toBe(3);
  }, 60_000);
});
