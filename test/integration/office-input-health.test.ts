// The office input checks share the event loop with every other request of the local server: while
// the heaviest document they rewrite is checked (a 0.2 MB DOCX whose document.xml is 40 MB of
// fields and link attributes), GET /v1/health keeps answering. The document ends in a picture
// declaring 60000 x 60000 pixels, read after the rewrite: the answer is 413 and LibreOffice never
// runs, so the whole request is the checks. No speed is asserted, only the order of the answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heavyFieldsDocx } from "#test/helpers/heavy-office.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";

const MB = 1024 * 1024;
let api: LocalApi;
let key: string;

beforeAll(async () => {
  api = await startLocalApi("office-input-health", { SIGNET_TABLE: "signet-office-input-health" });
  key = await obtainKey(api, "office-input-health");
}, 120_000);
afterAll(async () => {
  await api?.close();
});

/** convertWhilePolling sends /v1/convert and polls /v1/health one request after another until it answers; returns when each health answer came. */
async function convertWhilePolling(bytes: Buffer, from: string) {
  const form = new FormData();
  form.append("file", new Blob([bytes]), `document.${from}`);
  const started = performance.now();
  let answered: number | undefined;
  const converting = fetch(`${api.url}/v1/convert?from=${from}&to=pdf`, { method: "POST", body: form, headers: { authorization: `Bearer ${key}` } }).then(
    async (response) => {
      answered = performance.now();
      return { status: response.status, json: (await response.json()) as { code?: string } };
    },
  );
  const health: number[] = [];
  while (answered === undefined) {
    const response = await fetch(`${api.url}/v1/health`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    if (answered === undefined) health.push(performance.now());
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const converted = await converting;
  // The longest stretch without a health answer while the conversion was in progress.
  const times = [started, ...health, answered];
  const longestGap = Math.max(...times.slice(1).map((time, i) => time - times[i]!));
  return { converted, health, longestGap, took: answered - started };
}

describe("GET /v1/health while /v1/convert checks the heaviest input", () => {
  // A 20 MB RTF is checked within a few slices too (bench:office-input), but most of its request is
  // the 20 MB body itself (upload, event, multipart), which is not what this test is about.
  it("a DOCX whose document.xml is 40 MB of fields and links: health answers throughout, before the conversion does", async () => {
    const { converted, health, longestGap, took } = await convertWhilePolling(heavyFieldsDocx(40 * MB), "docx");
    expect(converted.status).toBe(413);
    expect(converted.json.code).toBe("IMAGE_TOO_LARGE");
    // Answers kept coming while the document was checked, not in one burst before or after it.
    expect(health.length).toBeGreaterThanOrEqual(5);
    expect(longestGap).toBeLessThan(took / 2);
  }, 120_000);
});
