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

/** GROUPS: the first pattern matching a sample's function (name and file) names its group. */
const GROUPS: Array<[string, RegExp]> = [
  ["garbage collection", /\(garbage collector\)/],
  ["idle (waiting for I/O)", /\(idle\)/],
  ["certificate page", /certificate-page|pdf-text|fontkit|audit-certificate/],
  ["hashing", /createHash|Hash\b|digest|update \S*node:internal\/crypto\/hash/],
  ["CMS and key", /cades|kms|pki\/|sign \S*node:internal\/crypto\/sig|asn1|pkijs/],
  ["Signet PDF parse (PdfFile)", /functions\/domain\/pdf\//],
  ["libpdf (load, objects, save)", /@libpdf/],
  ["signing (placement, incremental update)", /functions\/domain\/signing\//],
  ["HTTP, base64, JSON", /node:_http|node:http|node:net|node:stream|functions\/http\/|local\/|base64|JSON|toString|Buffer|node:buffer/],
];

function groupOf(node: ProfileNode): string {
  const label = `${node.callFrame.functionName} ${node.callFrame.url}`;
  return GROUPS.find(([, pattern]) => pattern.test(label))?.[0] ?? "other";
}

/** summarize prints self time per group and the top functions, per request. */
function summarize(runs: number): void {
  const profile = JSON.parse(readFileSync(PROFILE, "utf8")) as { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[] };
  const sampleMs = (profile.endTime - profile.startTime) / 1000 / profile.samples.length;
  const byNode = new Map<number, number>();
  for (const id of profile.samples) byNode.set(id, (byNode.get(id) ?? 0) + 1);
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = (byNode.get(node.id) ?? 0) * sampleMs;
    if (ms === 0) continue;
    byGroup.set(groupOf(node), (byGroup.get(groupOf(node)) ?? 0) + ms);
    const where = node.callFrame.url.replace(/^.*\/(node_modules|functions|local)\//, "$1/");
    const name = `${node.callFrame.functionName || "(anonymous)"} ${where}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  }
  const total = (profile.endTime - profile.startTime) / 1000;
  console.log(
    `Profile of ${runs} sequential ${ONE_PAGE ? "1-page" : "10 MB"} signs: ${(total / runs).toFixed(1)} ms wall a request, sampled every ${(sampleMs * 1000).toFixed(0)} µs.\n`,
  );
  console.log("| group | self time a request | share |\n|---|---|---|");
  for (const [group, ms] of [...byGroup].sort((a, b) => b[1] - a[1])) {
    console.log(`| ${group} | ${(ms / runs).toFixed(1)} ms | ${((100 * ms) / total).toFixed(1)}% |`);
  }
  console.log("\n| top self time (function, file:line) | a request | group |\n|---|---|---|");
  for (const [name, ms] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    const node = profile.nodes.find((candidate) => `${candidate.callFrame.functionName || "(anonymous)"}` === name.split(" ")[0]);
    console.log(`| ${name} | ${(ms / runs).toFixed(1)} ms | ${node ? groupOf(node) : ""} |`);
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
