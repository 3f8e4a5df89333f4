// npm run bench:profile-sign — where the time of one 10 MB / 100-page sign through the local server
// goes: the server of bench/http.ts in its own process (as `npm start` runs it), warmed with
// WARMUP signs, then the V8 CPU profiler (100 µs sampling, node:inspector) on around RUNS sequential
// signs; the profile's self time by function, grouped (parse, libpdf, hashing, CMS, certificate
// page, save, HTTP/base64/JSON, GC, idle), per request, and the top functions, each native or Node
// function charged to its nearest caller in Signet or libpdf. The raw profile is written to
// test-output/bench-http/sign-10mb.cpuprofile (open it in Chrome DevTools or speedscope).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { benchPdfFile } from "./naive-stack.ts";

const FOLDER = join(process.cwd(), "test-output", "bench-http");
// ONE_PAGE=1: the 1-page PDF instead (bench:http's 1-page case), 200 runs.
const ONE_PAGE = process.env.ONE_PAGE === "1";
const PROFILE = join(FOLDER, ONE_PAGE ? "sign-1-page.cpuprofile" : "sign-10mb.cpuprofile");
const WARMUP = ONE_PAGE ? 50 : 5;
const RUNS = Number(process.env.RUNS ?? (ONE_PAGE ? 200 : 10));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

/** GROUPS: a sample's group is the first whose pattern matches its leaf function, else its owner (see ownerOf). */
const LEAF_GROUPS: Array<[string, RegExp]> = [
  ["garbage collection", /^\(garbage collector\)$/],
  ["idle (waiting for I/O)", /^\(idle\)$/],
  ["hashing (SHA-256)", /^(update|digest)$/],
];
const OWNER_GROUPS: Array<[string, RegExp]> = [
  ["certificate page", /certificate-page|pdf-text|fontkit/],
  ["CMS, key (KMS stand-in), pki", /cades|kms|\/pki\/|@aws-sdk|@smithy|asn1|pkijs/],
  ["Signet PDF parse (PdfFile)", /functions\/domain\/pdf\//],
  ["libpdf (load, objects, save)", /@libpdf/],
  ["signing (placement, checks)", /functions\/domain\/signing\//],
  ["base64 decode and check", /functions\/domain\/shared\/document\.ts/],
  ["HTTP, JSON body, base64 answer", /functions\/http\/|local\/|node:_http|node:http|node:net|node:stream/],
  ["keys, rate limit, logging", /functions\/domain\/keys|functions\/wiring|dynamodb|powertools/],
];

/** ownerOf is a node's nearest frame (itself or a caller) in Signet or a package: native and Node functions are charged to it. */
function ownerOf(id: number, nodes: Map<number, ProfileNode>, parents: Map<number, number>): ProfileNode | undefined {
  for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
    const node = nodes.get(at)!;
    if (/\/(functions|local|node_modules)\//.test(node.callFrame.url)) return node;
  }
  return undefined;
}

const label = (node: ProfileNode) =>
  `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.replace(/^.*\/(node_modules|functions|local)\//, "$1/")}:${node.callFrame.lineNumber + 1}`;

function groupOf(node: ProfileNode, owner: ProfileNode | undefined): string {
  const leaf = LEAF_GROUPS.find(([, pattern]) => pattern.test(node.callFrame.functionName))?.[0];
  if (leaf) return leaf;
  const where = owner?.callFrame.url ?? node.callFrame.url;
  return OWNER_GROUPS.find(([, pattern]) => pattern.test(where))?.[0] ?? (owner ? "other packages" : "other (V8, Node internals)");
}

/** summarize prints self time per group and the top functions (with the caller they are charged to), per request. */
function summarize(runs: number): void {
  const profile = JSON.parse(readFileSync(PROFILE, "utf8")) as { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[] };
  const sampleMs = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, { ms: number; group: string }>();
  for (const [id, count] of hits) {
    const node = nodes.get(id)!;
    const owner = ownerOf(id, nodes, parents);
    const group = groupOf(node, owner);
    const ms = count * sampleMs;
    byGroup.set(group, (byGroup.get(group) ?? 0) + ms);
    const name = owner && owner !== node ? `${node.callFrame.functionName || "(native)"} <- ${label(owner)}` : label(node);
    byFunction.set(name, { ms: (byFunction.get(name)?.ms ?? 0) + ms, group });
  }
  const total = (profile.endTime - profile.startTime) / 1000;
  console.log(
    `Profile of ${runs} sequential ${ONE_PAGE ? "1-page" : "10 MB"} signs: ${(total / runs).toFixed(1)} ms wall a request, sampled every ${(sampleMs * 1000).toFixed(0)} µs.\n`,
  );
  console.log("| group | self time a request | share |\n|---|---|---|");
  for (const [group, ms] of [...byGroup].sort((a, b) => b[1] - a[1])) {
    console.log(`| ${group} | ${(ms / runs).toFixed(1)} ms | ${((100 * ms) / total).toFixed(1)}% |`);
  }
  console.log("\n| top self time (function <- caller charged) | a request | group |\n|---|---|---|");
  for (const [name, { ms, group }] of [...byFunction].sort((a, b) => b[1].ms - a[1].ms).slice(0, 20)) {
    console.log(`| ${name} | ${(ms / runs).toFixed(1)} ms | ${group} |`);
  }
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

async function main(): Promise<void> {
  if (process.argv[2] === "--summarize") return summarize(Number(process.argv[3] ?? RUNS));
  const pdf = readFileSync(await (ONE_PAGE ? benchPdfFile(FOLDER, "1-page.pdf", 1, 0) : benchPdfFile(FOLDER, "100-pages-10mb.pdf", 100, 100_000)));
  const body = Buffer.from(
    JSON.stringify({
      document: { base64: pdf.toString("base64") },
      signer: { name: "Ada Lovelace", email: "ada@example.com", ip: "203.0.113.7", userAgent: "Mozilla/5.0" },
      auditTrail: [
        { type: "ready", timestamp: "2026-11-22T09:55:00Z" },
        { type: "submit", timestamp: "2026-11-22T09:58:00Z" },
      ],
    }),
  );
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "bench/http.ts", "--server"], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { MALLOC_MMAP_THRESHOLD_: "131072", ...process.env, BENCH_PROFILE: PROFILE },
  });
  child.stdout.setEncoding("utf8");
  const lines: string[] = [];
  const waitFor = (prefix: string) =>
    new Promise<string>((resolve) => {
      const check = () => {
        const line = lines
          .join("")
          .split("\n")
          .find((candidate) => candidate.startsWith(prefix));
        if (line) resolve(line);
        else setTimeout(check, 50);
      };
      check();
    });
  child.stdout.on("data", (text: string) => lines.push(text));
  try {
    const { url, key } = JSON.parse(await waitFor('{"url"')) as { url: string; key: string };
    for (let i = 0; i < WARMUP; i++) if ((await post(`${url}/v1/sign`, key, body)) !== 200) throw new Error("sign failed");
    child.stdin.write("start\n");
    for (let i = 0; i < RUNS; i++) await post(`${url}/v1/sign`, key, body);
    child.stdin.write("stop\n");
    await waitFor("profiled");
  } finally {
    child.kill("SIGTERM");
  }
  summarize(RUNS);
}

await main();
