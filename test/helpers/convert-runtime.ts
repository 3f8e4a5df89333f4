// Helpers for convert tests: API Gateway events for the handler, stand-in soffice scripts and a
// look at the process table.
import { execFileSync } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { APIGatewayProxyEvent } from "aws-lambda";
import type { HttpResponse } from "#http/responses.ts";
import { makeConvertHandler } from "#functions/convert.ts";
import { invokeBuffered } from "#http/buffered-invoke.ts";
import { testContainer } from "#test/helpers/container.ts";
import { converter } from "#wiring/conversion.ts";
import { lambdaContext } from "#test/helpers/keys-harness.ts";

/** convertEvent builds the proxy event API Gateway sends for POST /v1/convert (body base64-encoded). */
function convertEvent(query: Record<string, string>, body: Buffer, contentType?: string): APIGatewayProxyEvent {
  return {
    httpMethod: "POST",
    path: "/v1/convert",
    resource: "/v1/convert",
    headers: contentType ? { "Content-Type": contentType } : {},
    multiValueHeaders: {},
    queryStringParameters: Object.keys(query).length > 0 ? query : null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: body.toString("base64"),
    isBase64Encoded: true,
    requestContext: {
      requestId: `test-${Math.random().toString(16).slice(2)}`,
      identity: { sourceIp: "127.0.0.1" },
      authorizer: { keyId: "test-key", email: "test@example.com" },
    } as unknown as APIGatewayProxyEvent["requestContext"],
  };
}

/** ConvertHandler calls the convert Lambda handler directly and stops the converter it started. */
export interface ConvertHandler {
  invoke(query: Record<string, string>, body: Buffer, contentType?: string): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** loadConvertHandler makes the convert handler on a container of its own, with the settings `env` adds. */
export async function loadConvertHandler(env: Record<string, string> = {}): Promise<ConvertHandler> {
  const container = testContainer(env);
  const handler = makeConvertHandler(container);
  const office = () => converter(container);
  return {
    // convert streams its answer: the real streaming path, reassembled from its wire output.
    invoke: (query, body, contentType) => invokeBuffered(handler as never, convertEvent(query, body, contentType), lambdaContext),
    close: () => office().close(),
  };
}

/**
 * standInSoffice writes an executable that plays soffice: it reads the input file (last argument)
 * and hangs (a shell plus a child sleep that never ends) when it holds HANG, exits 3 when it holds
 * CRASH, and otherwise also hangs. `marker` is put on the sleep's command line to find leftovers.
 */
export function standInSoffice(dir: string, marker: number): string {
  const path = join(dir, "soffice-stand-in.sh");
  writeFileSync(
    path,
    `#!/bin/sh
for last in "$@"; do :; done
if grep -q CRASH "$last" 2>/dev/null; then echo "stand-in crashed" >&2; exit 3; fi
sleep ${marker} &
wait
`,
  );
  chmodSync(path, 0o755);
  return path;
}

/**
 * stallingDriverPython writes an executable that plays the warm path's python: `-c` runs the real
 * /usr/bin/python3 (the uno probe); run as the driver, it runs the real uno-driver.py, which
 * stalls for good right after it started soffice (as a loaded machine may pause it there), having
 * written soffice's pid to `started` and said nothing to the converter yet.
 */
export function stallingDriverPython(dir: string, started: string): string {
  const path = join(dir, "python-stalling.sh");
  writeFileSync(
    path,
    `#!/bin/sh
[ "$1" = "-c" ] && exec /usr/bin/python3 "$@"
exec /usr/bin/python3 -c '
import runpy, subprocess, sys, time
class Stalling(subprocess.Popen):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        with open(${JSON.stringify(started)}, "w") as out:
            out.write(str(self.pid))
        time.sleep(3600)
subprocess.Popen = Stalling
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
' "$@"
`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** processesMatching lists "pid args" lines of live processes whose command line contains text. */
export function processesMatching(text: string): string[] {
  const table = execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" });
  return table
    .split("\n")
    .filter((line) => line.includes(text) && !/\sZ/.test(line.slice(0, 16)) && !line.includes("ps -eo"))
    .map((line) => line.trim());
}

/**
 * until polls check every 100 ms until it holds or maxMs have passed; the caller asserts after it.
 * For what happens some time after an event (a killed process disappearing, an instance coming
 * back), which a loaded machine delays: a fixed pause there is a race.
 */
export async function until(check: () => boolean, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** descendantsOf lists live (non-zombie) processes below pid, as "pid command" lines. */
export function descendantsOf(pid: number): string[] {
  const rows = execFileSync("ps", ["-eo", "pid=,ppid=,stat=,comm="], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols.length >= 4)
    .map(([p, pp, stat, comm]) => ({ pid: Number(p), ppid: Number(pp), zombie: stat!.startsWith("Z"), comm: comm! }));
  const found: string[] = [];
  const walk = (parent: number) => {
    for (const row of rows.filter((r) => r.ppid === parent)) {
      if (!row.zombie && row.comm !== "ps") found.push(`${row.pid} ${row.comm}`);
      walk(row.pid);
    }
  };
  walk(pid);
  return found;
}

/**
 * standInUnoDriver writes an executable that plays the python of the warm path: `-c "import uno"`
 * succeeds; run as the driver it reports ready, then answers every job by writing a partial PDF
 * (a "%PDF-" header and nothing else) to the output and failing the store, as a LibreOffice that
 * breaks half-way through an export would.
 */
export function standInUnoDriver(dir: string): string {
  const path = join(dir, "python-stand-in.mjs");
  writeFileSync(
    path,
    `#!${process.execPath}
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
if (process.argv[2] === "-c") process.exit(0);
console.log(JSON.stringify({ event: "ready" }));
createInterface({ input: process.stdin }).on("line", (line) => {
  const job = JSON.parse(line);
  writeFileSync(fileURLToPath(job.output), "%PDF-1.7\\n% partial\\n");
  console.log(JSON.stringify({ ok: false, kind: "store", error: "stand-in: export failed half-way" }));
});
`,
  );
  chmodSync(path, 0o755);
  return path;
}
