// Three small inputs froze the local server (issue 36): a 1.8 KB DOCX of 20,000 nested {{#a}}
// sections (never compiled, every request stalled), 20 repeat fields of 10,000 items (33.5 s, health
// waited 30 s, RSS +2 GB), a 21 MB .doc whose 100 stream entries share one chain (19.6 s, 2.5 GB).
// The server runs in a child process; this one polls /v1/health every 100 ms while each input is
// sent and reads the child's memory from /proc. Each input must be refused or served, every health
// answer must come within 1 s, and the peak RSS must grow by less than 500 MB. The attack's own time
// is not judged (a loaded machine may take long), only what it does to the others.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedChainDoc } from "#test/helpers/compound-files.ts";
import { buildDocx, inlineControl, p, repeatingSection, run } from "#test/helpers/docx-builder.ts";

const HEALTH_LIMIT_MS = 1000;
const RSS_LIMIT_MB = 500;
// Generous: the input's own work on a loaded machine, not a judgement of its speed.
const ATTACK_BUDGET_MS = 150_000;

let child: ChildProcess;
let server: { url: string; key: string };

beforeAll(async () => {
  child = spawn(process.execPath, ["--import", "tsx", "test/helpers/server-child.ts", "freeze-inputs"], {
    cwd: process.cwd(),
    env: { ...process.env, SIGNET_LOG_LEVEL: "ERROR", SIGNET_CONVERSION_MODE: "oneshot", SIGNET_TABLE: "signet-freeze-inputs" },
    detached: true,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  server = await new Promise((resolve, reject) => {
    child.once("message", (message) => resolve(message as { url: string; key: string }));
    child.once("exit", (code) => reject(new Error(`the server child exited (${code})`)));
  });
}, 180_000);
afterAll(() => {
  if (child?.pid) process.kill(-child.pid, "SIGKILL");
});

const status = (field: "VmRSS" | "VmHWM") => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) / 1024;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const post = (path: string, body: unknown, signal?: AbortSignal) =>
  fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${server.key}` },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });
const convert = (bytes: Buffer, from: string, signal?: AbortSignal) => {
  const form = new FormData();
  form.append("file", new Blob([bytes]), `document.${from}`);
  return fetch(`${server.url}/v1/convert?from=${from}&to=pdf`, {
    method: "POST",
    body: form,
    headers: { authorization: `Bearer ${server.key}` },
    ...(signal ? { signal } : {}),
  });
};

/**
 * whileWatching sends one request and polls /v1/health every 100 ms until it is answered: the worst
 * health latency, the growth of the server's peak RSS over its RSS before, and the answer. A health
 * answer later than the limit ends the watch there (the request is abandoned): that is the failure.
 */
async function whileWatching(send: (signal: AbortSignal) => Promise<Response>) {
  writeFileSync(`/proc/${child.pid}/clear_refs`, "5"); // VmHWM starts again from the current RSS
  const before = status("VmRSS");
  const abandon = new AbortController();
  let answer: { status: number; json: Record<string, unknown> } | undefined;
  const sending = send(abandon.signal).then(async (response) => {
    answer = { status: response.status, json: (await response.json().catch(() => ({}))) as Record<string, unknown> };
  });
  sending.catch(() => undefined);
  const polls: number[] = [];
  const started = performance.now();
  while (!answer && performance.now() - started < ATTACK_BUDGET_MS) {
    const at = performance.now();
    const health = await fetch(`${server.url}/v1/health`, { signal: AbortSignal.timeout(HEALTH_LIMIT_MS * 5) }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => 0,
    );
    polls.push(performance.now() - at);
    if (health !== 200 || polls.at(-1)! > HEALTH_LIMIT_MS) break;
    await pause(100);
  }
  if (!answer) {
    abandon.abort();
  } else await sending;
  return { answer, worstHealthMs: Math.max(...polls), polls: polls.length, rssGrowthMb: status("VmHWM") - before };
}

// The attacks, each warmed up first with a small request of the same route (a route's first use
// loads its modules, which is no part of what is measured).
const nested = buildDocx({ body: p(run(`${"{{#a}}".repeat(20_000)}x${"{{/a}}".repeat(20_000)}`)) });
const sections = buildDocx({
  body: Array.from({ length: 20 }, (_, i) => repeatingSection({ tag: `s${i}` }, p(run("Name: ") + inlineControl({ tag: "name" })))).join(""),
});
const items = Array.from({ length: 10_000 }, (_, i) => ({ name: `item ${i}` }));
const small = buildDocx({ body: p(run("{{#a}}{{b}}{{/a}}")) + repeatingSection({ tag: "s" }, p(inlineControl({ tag: "name" }))) });

describe("GET /v1/health while the server is sent an input that froze it", () => {
  it("a 1.8 KB DOCX of 20,000 nested {{#a}} sections, to /v1/annotate/fields and to annotate with data: 413, health answers throughout", async () => {
    expect(nested.length).toBeLessThan(2500);
    expect((await post("/v1/annotate/fields", { document: { base64: small.toString("base64") } })).status).toBe(200);
    for (const [path, extra] of [
      ["/v1/annotate/fields", {}],
      ["/v1/annotate", { fields: [], data: { a: true } }],
    ] as const) {
      const watched = await whileWatching((signal) => post(path, { document: { base64: nested.toString("base64") }, ...extra }, signal));
      expect(watched.worstHealthMs, `${path}: worst health answer`).toBeLessThan(HEALTH_LIMIT_MS);
      expect(watched.answer, `${path}: answered`).toMatchObject({ status: 413, json: { code: "PAYLOAD_TOO_LARGE" } });
      expect(String(watched.answer!.json.message)).toContain("SIGNET_MAX_TEMPLATE_DEPTH");
      expect(watched.rssGrowthMb, `${path}: peak RSS growth (MB)`).toBeLessThan(RSS_LIMIT_MB);
    }
  }, 400_000);

  it("20 repeat fields of 10,000 items each (a 3 MB request): 413 before any copy, health answers throughout", async () => {
    const warm = await post("/v1/annotate", { document: { base64: small.toString("base64") }, fields: [{ id: "s", type: "repeat", value: [{ name: "x" }] }] });
    expect(warm.status).toBe(200);
    const fields = Array.from({ length: 20 }, (_, i) => ({ id: `s${i}`, type: "repeat", value: items }));
    const body = { document: { base64: sections.toString("base64") }, fields };
    expect(JSON.stringify(body).length).toBeLessThan(4 * 1024 * 1024);
    const watched = await whileWatching((signal) => post("/v1/annotate", body, signal));
    expect(watched.worstHealthMs).toBeLessThan(HEALTH_LIMIT_MS);
    expect(watched.answer).toMatchObject({ status: 413, json: { code: "PAYLOAD_TOO_LARGE" } });
    expect(watched.answer!.json.details).toEqual([
      { field: "fields.1.value", issue: "10000 items bring the request's copies and loop iterations to 20000, at most 10000" },
    ]);
    expect(watched.rssGrowthMb).toBeLessThan(RSS_LIMIT_MB);
  }, 200_000);

  it("a 21 MB .doc whose 100 stream entries share one sector chain: 422 damaged, health answers throughout", async () => {
    const warm = await convert(sharedChainDoc(64 * 1024, 2), "doc");
    expect(warm.status).toBe(422);
    const watched = await whileWatching((signal) => convert(sharedChainDoc(21 * 1024 * 1024, 100), "doc", signal));
    expect(watched.worstHealthMs).toBeLessThan(HEALTH_LIMIT_MS);
    expect(watched.answer).toMatchObject({
      status: 422,
      json: {
        code: "INVALID_DOCUMENT",
        message: "The .doc file is damaged (a sector chain loops, or two streams share a sector); save it again from a word processor and upload it again.",
      },
    });
    expect(watched.rssGrowthMb).toBeLessThan(RSS_LIMIT_MB);
  }, 200_000);
});
