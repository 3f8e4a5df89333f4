// npm run bench:profile-pdf-tools — where the server's time of a merge or a split goes: the server of
// bench/http.ts in its own process, warmed, then the V8 CPU profiler (100 µs sampling) on RUNS
// sequential requests; self time per function (native and Node frames charged to their nearest
// caller in Signet or a package), per request. CASE=merge-2 (2 files of 5 pages, the default),
// merge-20, merge-200, split-1000 or split-heavy (100 pages, 10 MB). The raw profile: test-output/bench-http/<case>.cpuprofile.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { makePdf } from "#test/helpers/pdf-builder.ts";
import { makeBenchPdf } from "./naive-stack.ts";

const CASE = process.env.CASE ?? "merge-2";
const FOLDER = join(process.cwd(), "test-output", "bench-http");
const PROFILE = join(FOLDER, `${CASE}.cpuprofile`);
const RUNS = Number(process.env.RUNS ?? (CASE.startsWith("split") ? 10 : CASE === "merge-200" ? 20 : 200));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const label = (node: ProfileNode) =>
  `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.replace(/^.*\/(node_modules|functions|local)\//, "$1/")}:${node.callFrame.lineNumber + 1}`;

/** summarize prints self time per function (charged to its nearest Signet or package frame) and per file, a request. */
function summarize(): void {
  const profile = JSON.parse(readFileSync(PROFILE, "utf8")) as { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[] };
  const sampleMs = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const id of profile.samples) {
    let owner: ProfileNode | undefined;
    for (let at: number | undefined = id; at !== undefined && !owner; at = parents.get(at)) {
      const node = nodes.get(at)!;
      if (/\/(functions|local|node_modules)\//.test(node.callFrame.url)) owner = node;
    }
    const node = nodes.get(id)!;
    const name = owner && owner !== node ? `${node.callFrame.functionName || "(native)"} <- ${label(owner)}` : label(node);
    byFunction.set(name, (byFunction.get(name) ?? 0) + sampleMs);
    const file = owner ? owner.callFrame.url.replace(/^.*\/(node_modules\/[^/]+(\/[^/]+)?|functions\/.*|local\/.*)$/, "$1") : node.callFrame.functionName;
    byFile.set(file, (byFile.get(file) ?? 0) + sampleMs);
  }
  const total = (profile.endTime - profile.startTime) / 1000;
  console.log(`Profile of ${RUNS} sequential ${CASE}: ${(total / RUNS).toFixed(2)} ms wall a request.\n`);
  console.log("| file or package | self time a request |\n|---|---|");
  for (const [file, ms] of [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`| ${file} | ${(ms / RUNS).toFixed(2)} ms |`);
  console.log("\n| top self time (function <- caller charged) | a request |\n|---|---|");
  for (const [name, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`| ${name} | ${(ms / RUNS).toFixed(2)} ms |`);
}

function post(url: string, key: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { "content-type": "application/json", "content-length": body.length, authorization: `Bearer ${key}` };
    const req = http.request(url, { method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** request is the case's route and body. */
async function request(): Promise<[string, Buffer]> {
  if (CASE === "split-heavy") {
    return ["/v1/split", Buffer.from(JSON.stringify({ document: { base64: (await makeBenchPdf(100, 100_000)).toString("base64") }, every: 1 }))];
  }
  if (CASE === "split-1000") {
    return ["/v1/split", Buffer.from(JSON.stringify({ document: { base64: (await makePdf(1000)).toString("base64") }, every: 1 }))];
  }
  const count = Number(CASE.split("-")[1]);
  const file = (await makePdf(5)).toString("base64");
  return ["/v1/merge", Buffer.from(JSON.stringify({ documents: Array.from({ length: count }, () => ({ document: { base64: file } })) }))];
}

async function main(): Promise<void> {
  mkdirSync(FOLDER, { recursive: true });
  if (process.argv[2] === "--summarize") return summarize();
  const [path, body] = await request();
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "bench/http.ts", "--server"], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { MALLOC_MMAP_THRESHOLD_: "131072", SIGNET_LOG_LEVEL: "SILENT", ...process.env, BENCH_PROFILE: PROFILE },
  });
  child.stdout.setEncoding("utf8");
  let output = "";
  child.stdout.on("data", (text: string) => {
    output += text;
  });
  const waitFor = async (prefix: string): Promise<string> => {
    for (;;) {
      const line = output.split("\n").find((candidate) => candidate.startsWith(prefix));
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  try {
    const { url, key } = JSON.parse(await waitFor('{"url"')) as { url: string; key: string };
    for (let i = 0; i < Math.min(RUNS, 20); i++) if ((await post(`${url}${path}`, key, body)) !== 200) throw new Error(`${path} failed`);
    child.stdin.write("start\n");
    for (let i = 0; i < RUNS; i++) await post(`${url}${path}`, key, body);
    child.stdin.write("stop\n");
    await waitFor("profiled");
  } finally {
    child.kill("SIGTERM");
  }
  summarize();
}

await main();
