import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { STREAMING_DELIMITER } from "#http/streaming.ts";
import { samEvents } from "../../scripts/sam-events.ts";
import { synthesize, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";
import { type InvocationResult, RuntimeApiStandIn } from "#test/helpers/runtime-api.ts";

// Every function's bundle, as synthesized for deployment, run by the real Node.js runtime
// interface client (aws-lambda-ric, the code Lambda's nodejs22.x runtime runs, with its native
// Runtime API client) on Node 22, against a local Runtime API stand-in, with only its deployed
// environment: no AWS credentials and no endpoints, so what reaches AWS answers in Signet's
// error layout. Each sample event of events/ goes to its function (npm run sam:events).
const node22 = join(repoRoot, "node_modules", ".bin", "node");
// Built by scripts/setup.mjs into its own tools folder (a native build; see there why not a dependency).
const ricPackage = join(repoRoot, ".tools", "ric", "node_modules", "aws-lambda-ric");
const ricEntry = join(ricPackage, "index.mjs");

let synth: Synthesized;
const work = mkdtempSync(join(tmpdir(), "signet-ric-"));
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, SYNTH_TIMEOUT_MS);

/** where a function's bundle is: the zip asset's folder (index.handler) or the image's app folder (<name>.handler). */
function taskOf(name: string): { root: string; handler: string } {
  const props = synth.json.Resources[functionLogicalId(name)]!.Properties;
  const code = props.Code as { S3Key?: string };
  if (code.S3Key) return { root: join(synth.outdir, `asset.${code.S3Key.replace(/\.zip$/, "")}`), handler: "index.handler" };
  return { root: join(synth.outdir, ".signet-image", "app"), handler: `${name}.handler` };
}

/** deployedEnv is the function's template environment: references become placeholders, /var/task the bundle's folder. */
function deployedEnv(name: string, root: string): Record<string, string> {
  const variables = (synth.json.Resources[functionLogicalId(name)]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  return Object.fromEntries(
    Object.entries(variables).map(([key, value]) => [
      key,
      typeof value === "string" ? value.replace(/^\/var\/task(?=\/|$)/, root) : `deployed-${key.toLowerCase()}`,
    ]),
  );
}

/** ClientRun is one runtime client process serving one function. */
interface ClientRun {
  api: RuntimeApiStandIn;
  child: ChildProcess;
  output: () => string;
}

async function startClient(name: string): Promise<ClientRun> {
  const api = new RuntimeApiStandIn();
  const runtimeApi = await api.start();
  const { root, handler } = taskOf(name);
  const memory = String(synth.json.Resources[functionLogicalId(name)]!.Properties.MemorySize);
  // What Lambda sets (reserved variables), the function's own, and nothing of this machine's.
  const env = {
    PATH: `${dirname(node22)}:/usr/local/bin:/usr/bin:/bin`,
    LANG: "en_US.UTF-8",
    TZ: ":UTC",
    HOME: work,
    AWS_REGION: "eu-west-1",
    AWS_DEFAULT_REGION: "eu-west-1",
    AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
    AWS_LAMBDA_FUNCTION_NAME: `Signet-${functionLogicalId(name)}`,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: memory,
    AWS_LAMBDA_FUNCTION_VERSION: "$LATEST",
    AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/Signet-${functionLogicalId(name)}`,
    AWS_LAMBDA_LOG_STREAM_NAME: "2026/11/25/[$LATEST]0123456789abcdef0123456789abcdef",
    AWS_LAMBDA_RUNTIME_API: runtimeApi,
    AWS_EC2_METADATA_DISABLED: "true",
    LAMBDA_TASK_ROOT: root,
    LAMBDA_RUNTIME_DIR: dirname(ricEntry),
    _HANDLER: handler,
    ...deployedEnv(name, root),
  };
  let output = "";
  const child = spawn(node22, [ricEntry], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  // A client that ends (it should serve until killed) fails what it was given, rather than hanging the test.
  child.on("exit", (code, signal) => api.abandon(`the runtime client ended (exit ${code}, ${signal}):\n${output.slice(-3000)}`));
  return { api, child, output: () => output };
}

async function stopClient(run: ClientRun): Promise<void> {
  run.child.kill("SIGKILL");
  await run.api.close();
}

/** decoded is a streamed answer split at the 8 NUL bytes: the prelude (status, headers) and the body. */
function decoded(result: InvocationResult): { prelude: { statusCode: number; headers: Record<string, string> }; body: Buffer } {
  const at = result.body.indexOf(STREAMING_DELIMITER);
  expect(at, result.body.subarray(0, 200).toString()).toBeGreaterThan(0);
  return { prelude: JSON.parse(result.body.subarray(0, at).toString("utf8")), body: result.body.subarray(at + STREAMING_DELIMITER.length) };
}

/** expected status per sample event, with only the deployed environment (no AWS reachable). */
const expectedStatus: Record<string, number> = {
  "events/info.json": 200,
  "events/health.json": 200,
  "events/openapi.json": 200,
  "events/docs.json": 200,
  "events/fallback-not-found.json": 404,
  "events/fallback-method-not-allowed.json": 405,
  "events/options-preflight.json": 204,
  // GET /v1/verify/crl on AWS signs the CRL with the root key in KMS (the default identity), after
  // reading the identity bucket: neither is reachable here, so the answer is 503 in the error layout.
  "events/verify-crl.json": 503,
};

afterAll(() => rmSync(work, { recursive: true, force: true }));

// aws-lambda-cpp builds on Linux only (Lambda's own platform): elsewhere this fails, naming why.
describe("the bundles under aws-lambda-ric (the Node.js runtime interface client)", () => {
  const listing = samEvents();

  it("runs on Linux, the only platform aws-lambda-ric builds on", () => {
    expect(process.platform, "aws-lambda-ric (aws-lambda-cpp) builds on Linux only: run the suite on Linux, as CI and Lambda do").toBe("linux");
  });

  it("has aws-lambda-ric with its native Runtime API client", () => {
    expect(
      existsSync(join(ricPackage, "rapid-client.node")),
      "aws-lambda-ric is not built: run `node scripts/setup.mjs --test` (it builds it into .tools/ric; needs cmake, make, g++)",
    ).toBe(true);
  });

  it.each(listing.map((entry) => [entry.name, entry] as const))(
    "%s answers each of its sample events",
    async (name, entry) => {
      const run = await startClient(name);
      try {
        for (const file of entry.events) {
          const event = JSON.parse(readFileSync(join(repoRoot, file), "utf8")) as unknown;
          const result = await run.api.invoke(event, { timeoutMs: 60_000 });
          expect(run.api.initErrors, run.output()).toEqual([]);
          expect(result.kind, `${file}: ${result.body.toString().slice(0, 500)}\n${run.output().slice(-2000)}`).toBe("response");
          if (name === "authorizer") {
            // A TOKEN authorizer answers a policy, or "Unauthorized" / an error; never a proxy result.
            const answer = JSON.parse(result.body.toString()) as Record<string, unknown>;
            expect(answer.statusCode).toBeUndefined();
            continue;
          }
          if (entry.streaming) {
            // The streaming wire format API Gateway reads: prelude JSON, 8 NUL bytes, the body.
            expect(result.mode, file).toBe("streaming");
            expect(result.contentType, file).toBe("application/vnd.awslambda.http-integration-response");
            expect(result.trailers["lambda-runtime-function-error-type"], file).toBeUndefined();
            const { prelude, body } = decoded(result);
            expect(prelude.headers["Content-Length"], file).toBe(String(body.length));
            expect(prelude.headers["X-Request-Id"], file).toBeTruthy();
            // With only the deployed environment nothing of AWS is reachable (the per-key count fails
            // open) and the office function cannot be invoked here: 503 in the error layout where
            // either is needed, 200 where neither is.
            expect([200, 503], `${file}: ${body.toString().slice(0, 300)}`).toContain(prelude.statusCode);
            if (prelude.statusCode === 503) expect(JSON.parse(body.toString("utf8"))).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
            continue;
          }
          expect(result.mode, file).toBeUndefined();
          const answer = JSON.parse(result.body.toString()) as { statusCode: number; headers: Record<string, string>; body: string };
          const expected = expectedStatus[file];
          if (expected !== undefined) expect(answer.statusCode, `${file}: ${answer.body?.slice(0, 300)}`).toBe(expected);
          // Anything that needs AWS (keys, mail, the identity, uploads) answers in the error layout, never a crash.
          else expect([200, 400, 401, 404, 422, 502, 503], `${file}: ${answer.body?.slice(0, 300)}`).toContain(answer.statusCode);
          if (answer.statusCode >= 400 && answer.body) expect(JSON.parse(answer.body)).toHaveProperty("code");
        }
      } finally {
        await stopClient(run);
      }
    },
    120_000,
  );

  it("runs the office function from the image's own folder, and sign, annotate and convert from zips", () => {
    expect(existsSync(join(taskOf("office").root, "office.mjs"))).toBe(true);
    for (const name of ["sign", "annotate", "convert"]) expect(taskOf(name).handler, name).toBe("index.handler");
  });
});
