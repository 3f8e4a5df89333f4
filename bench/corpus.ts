// npm run bench:corpus -- DIR — Signet on your own PDFs: signs every PDF under DIR
// through the real local server (started as `npm start` starts it, in its own process), checks each
// answer the way the tests do (qpdf --check, the page counts of poppler and MuPDF against the
// input's, strict pyHanko) and prints the classification table (signed and valid; signed with a
// notice; refused, by reason; defects) with median and p95 request times.
//
// Options: --generated signs the generated cases of test/helpers/real-world-pdfs.ts instead of DIR;
// --out DIR keeps every signed output there; --level B-B|B-T|... (default: the server's).
// pyHanko is found as the tests find it (test/helpers/pyhanko.ts: SIGNET_PYHANKO, else the
// .tools/pyhanko that `node scripts/setup.mjs --test` installs); without it that column is skipped. Runs sequentially: one request at a time.
import { runPyhanko } from "#test/helpers/pyhanko.ts";
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { basename, join, relative } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const MAX_BYTES = 7 * 1024 * 1024; // base64 of it stays under API Gateway's 10 MB request

// ---- the server process (as bench/http.ts starts it) --------------------------------------

async function serverMain(): Promise<void> {
  const { obtainKey, startLocalApi } = await import("#test/helpers/local-api.ts");
  const api = await startLocalApi("bench-corpus", {
    SIGNET_TABLE: "signet-bench-corpus",
    SIGNET_CONVERSION_MODE: "oneshot",
    SIGNET_LOG_LEVEL: process.env.SIGNET_LOG_LEVEL ?? "ERROR",
    SIGNET_KEY_RATE_LIMIT: "100000000",
  });
  const key = await obtainKey(api, "corpus");
  process.stdout.write(`${JSON.stringify({ url: api.url, key, pid: process.pid })}\n`);
  process.on("SIGTERM", () => void api.close().then(() => process.exit(0)));
}

interface ServerHandle {
  url: string;
  key: string;
  child: ChildProcess;
}

function startServer(): Promise<ServerHandle> {
  const child = spawn(process.execPath, ["--expose-gc", "--import", "tsx", "bench/corpus.ts", "--server"], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { MALLOC_MMAP_THRESHOLD_: "131072", ...process.env },
  });
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (text: string) => {
      buffered += text;
      const line = buffered.split("\n").find((candidate) => candidate.startsWith('{"url"'));
      if (line) resolve({ ...(JSON.parse(line) as { url: string; key: string }), child });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}

// ---- the client and the readers -------------------------------------------------------------

interface Answer {
  status: number;
  body: string;
  headers: http.IncomingHttpHeaders;
  ms: number;
}

function post(url: string, key: string, body: Buffer): Promise<Answer> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { "content-type": "application/json", "content-length": body.length, authorization: `Bearer ${key}` }, timeout: 120_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), headers: res.headers, ms: performance.now() - start }),
        );
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("time-out after 120 s")));
    req.on("error", reject);
    req.end(body);
  });
}

/** tool runs a checker and keeps its output and exit status (checkers exit non-zero on findings). */
async function tool(command: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : -1, out: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

interface ReaderView {
  poppler: number;
  mupdf: number;
  qpdf: number;
  /** qpdf --check: 0 clean, 3 warnings, 2 errors. */
  qpdfCode: number;
  loop: boolean;
  encrypted: boolean;
}

async function readers(path: string): Promise<ReaderView> {
  const [info, mutool, npages, check] = await Promise.all([
    tool("pdfinfo", [path]),
    tool("mutool", ["info", path]),
    tool("qpdf", ["--show-npages", path]),
    tool("qpdf", ["--check", path]),
  ]);
  return {
    poppler: Number(/^Pages:\s+(\d+)/m.exec(info.out)?.[1] ?? Number.NaN),
    mupdf: Number(/^Pages: (\d+)/m.exec(mutool.out)?.[1] ?? Number.NaN),
    qpdf: Number(/^(\d+)\s*$/m.exec(npages.out)?.[1] ?? Number.NaN),
    qpdfCode: check.code,
    loop: /loop detected/i.test(check.out),
    encrypted: /^Encrypted:\s+yes/m.test(info.out) || /invalid password|file is encrypted/i.test(`${check.out}${npages.out}`),
  };
}

/** hasPyhanko tells whether test/helpers/pyhanko.ts finds pyHanko (SIGNET_PYHANKO or .tools/pyhanko). */
function hasPyhanko(): boolean {
  try {
    runPyhanko("pyhanko-validate.py", []); // usage only: proves the runtime imports pyHanko
    return true;
  } catch {
    return false;
  }
}

/** strictPyhanko validates a file with strict pyHanko: exit status 0 when every signature holds. */
function strictPyhanko(file: string): { code: number; out: string } {
  const result = runPyhanko("pyhanko-validate.py", [file]);
  return { code: result.status ?? -1, out: `${result.stdout}${result.stderr}` };
}

// ---- classification ---------------------------------------------------------------------------

interface Row {
  file: string;
  category: string;
  status?: number;
  ms?: number;
  detail?: string;
}

const pdfsUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return pdfsUnder(path);
      return entry.isFile() && /\.pdf$/i.test(entry.name) ? [path] : [];
    })
    .sort();

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
};

async function classify(server: ServerHandle, path: string, options: { out?: string; level?: string; pyhanko?: boolean }, scratch: string): Promise<Row> {
  const file = path;
  const bytes = readFileSync(path);
  if (bytes.length > MAX_BYTES) return { file, category: `skipped: over ${MAX_BYTES / 1024 / 1024} MB` };
  if (bytes.subarray(0, 1024).indexOf("%PDF-") < 0) return { file, category: "skipped: no %PDF- header" };
  const before = await readers(path);
  const body = Buffer.from(
    JSON.stringify({
      document: { base64: bytes.toString("base64") },
      signer: { name: "Ada Lovelace", email: "ada@example.com" },
      auditTrail: [{ type: "submit", timestamp: "2026-11-22T09:58:00Z" }],
      ...(options.level ? { level: options.level } : {}),
    }),
  );
  let answer: Answer;
  try {
    answer = await post(`${server.url}/v1/sign`, server.key, body);
  } catch (error) {
    return { file, category: "defect: no answer", detail: String(error) };
  }
  if (answer.status !== 200) {
    let reason = String(answer.status);
    try {
      const error = JSON.parse(answer.body) as { code: string; message: string };
      reason = `${error.code}: ${error.message.replace(/\d+/g, "N")}`;
    } catch {}
    if (answer.status >= 500) return { file, category: `defect: ${answer.status}`, status: answer.status, ms: answer.ms, detail: reason };
    return { file, category: `refused ${answer.status} ${reason}`, status: answer.status, ms: answer.ms };
  }
  const signed = Buffer.from((JSON.parse(answer.body) as { document: { base64: string } }).document.base64, "base64");
  const outPath = join(options.out ?? scratch, `${relative("/", path).replace(/[/\\]/g, "__")}`);
  writeFileSync(outPath, signed);
  const after = await readers(outPath);
  const defects: string[] = [];
  // With a new certificate page (one more "Audit Trail Certificate" title than the input shows:
  // an input Signet signed before ends with one already), every reader must show one more page.
  const titles = async (file: string) => ((await tool("pdftotext", [file, "-"])).out.match(/Audit Trail Certificate/g) ?? []).length;
  const added = (await titles(outPath)) > (await titles(path)) ? 1 : 0;
  for (const reader of ["poppler", "mupdf", "qpdf"] as const) {
    if (Number.isFinite(before[reader]) && !(after[reader] >= before[reader] + added)) {
      defects.push(`${reader} ${before[reader]} -> ${after[reader]} pages${added ? " with the certificate page" : ""}`);
    }
  }
  if (after.loop && !before.loop) defects.push("page-tree loop");
  if (after.qpdfCode === 2 && before.qpdfCode !== 2) defects.push("qpdf --check errors");
  if (signed.subarray(0, Math.min(signed.length, 5)).toString("latin1") !== "%PDF-") defects.push("not a PDF");
  const notice = answer.headers["signet-notice"];
  const rewritten = answer.headers["signet-input-rewritten"];
  let strict = "not run";
  if (options.pyhanko) {
    const result = strictPyhanko(outPath);
    const lines = result.out.split("\n").filter((line) => line.startsWith("{"));
    if (result.code === 0) strict = "holds";
    else if (/hybrid-reference files/.test(result.out)) strict = "not evaluated (hybrid)";
    else strict = `fails${lines.length ? "" : ` (${result.out.trim().split("\n").at(-1)?.slice(0, 80)})`}`;
    if (strict.startsWith("fails")) {
      // An input whose earlier signatures strict pyHanko already refuses (forged, damaged) is not Signet's defect.
      const input = strictPyhanko(path);
      if (input.code !== 0 && !/"signatures": 0\b/.test(input.out)) strict = "fails, as on the input (an earlier signature)";
      else defects.push(`strict pyHanko ${strict}`);
    }
  }
  if (defects.length > 0) return { file, category: `defect: ${defects.join(", ")}`, status: 200, ms: answer.ms };
  const how = rewritten ? `, rewritten (${rewritten})` : "";
  if (notice || strict !== "holds")
    return {
      file,
      category: `signed, ${strict === "holds" ? "valid" : `strict pyHanko ${strict}`}${how}${notice ? " (notice)" : ""}`,
      status: 200,
      ms: answer.ms,
      detail: notice as string,
    };
  return { file, category: `signed and valid${how}`, status: 200, ms: answer.ms };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let dir = args.find((arg, index) => !arg.startsWith("--") && !["--out", "--level"].includes(args[index - 1] ?? ""));
  if (args.includes("--generated")) {
    // The real-world structures, as the tests generate them (test/helpers/real-world-pdfs.ts).
    const { realWorldCases } = await import("#test/helpers/real-world-pdfs.ts");
    dir = join(process.cwd(), "test-output", "bench-corpus-generated");
    mkdirSync(dir, { recursive: true });
    for (const generated of realWorldCases()) writeFileSync(join(dir, `${generated.name}.pdf`), generated.bytes);
  }
  if (!dir || !existsSync(dir) || !statSync(dir).isDirectory()) {
    console.error("usage: npm run bench:corpus -- DIR|--generated [--out DIR] [--level B-B]");
    process.exit(2);
  }
  const flag = (name: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const out = flag("--out");
  if (out) mkdirSync(out, { recursive: true });
  const scratch = join(process.cwd(), "test-output", "bench-corpus");
  mkdirSync(scratch, { recursive: true });
  const pyhanko = hasPyhanko();
  const files = pdfsUnder(dir);
  console.log(
    `${files.length} PDFs under ${dir}; pyHanko: ${pyhanko ? "found" : "not found (set SIGNET_PYHANKO or run node scripts/setup.mjs --test), column skipped"}`,
  );
  const server = await startServer();
  const rows: Row[] = [];
  try {
    // One untimed request first: the server loads its fonts and identity on the first signing.
    const warm = files.find((path) => statSync(path).size <= MAX_BYTES);
    if (warm) await classify(server, warm, {}, scratch);
    for (const [index, path] of files.entries()) {
      const row = await classify(
        server,
        path,
        { ...(out ? { out } : {}), ...(flag("--level") ? { level: flag("--level")! } : {}), ...(pyhanko ? { pyhanko: true } : {}) },
        scratch,
      );
      rows.push(row);
      if (process.env.BENCH_VERBOSE) console.log(`${index + 1}/${files.length} ${basename(path)}: ${row.category}${row.detail ? ` [${row.detail}]` : ""}`);
    }
  } finally {
    server.child.kill("SIGTERM");
  }
  const groups = new Map<string, Row[]>();
  for (const row of rows) groups.set(row.category, [...(groups.get(row.category) ?? []), row]);
  const order = (category: string) =>
    category.startsWith("signed and valid")
      ? 0
      : category.startsWith("signed")
        ? 1
        : category.startsWith("refused")
          ? 2
          : category.startsWith("defect")
            ? 3
            : 4;
  console.log("\n| outcome | files | examples |\n|---|---:|---|");
  for (const [category, members] of [...groups].sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b))) {
    const examples = members
      .slice(0, 3)
      .map((row) => basename(row.file))
      .join(", ");
    console.log(`| ${category.replace(/\|/g, "/")} | ${members.length} | ${examples}${members.length > 3 ? ", ..." : ""} |`);
  }
  const timed = (filter: (row: Row) => boolean) => rows.filter((row) => row.ms !== undefined && filter(row)).map((row) => row.ms!);
  for (const [label, times] of [
    ["answered 200", timed((row) => row.status === 200)],
    ["refused (4xx)", timed((row) => row.category.startsWith("refused"))],
  ] as const) {
    if (times.length > 0)
      console.log(`${label}: ${times.length} requests, median ${percentile(times, 50).toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms`);
  }
  const defects = rows.filter((row) => row.category.startsWith("defect"));
  for (const row of defects) console.log(`defect: ${row.file}: ${row.category}${row.detail ? ` [${row.detail}]` : ""}`);
  process.exit(0);
}

if (process.argv.includes("--server")) void serverMain();
else await main();
