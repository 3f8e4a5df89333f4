import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";
import { libreOfficeBaseImage } from "../../infra/base-image.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { testBaseImageDigest, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";
import { WEBP_GLUE, WEBP_WASM } from "#adapters/jsquash-webp-decoder.ts";
import { registryModificationsText } from "#adapters/libreoffice/profile.ts";
import { RESVG_GLUE, RESVG_WASM } from "#adapters/resvg-svg-renderer.ts";

// `npx cdk synth` exactly as a user runs it, on a machine with no AWS credentials and no Docker:
// every AWS_* variable is removed (credential files pointed nowhere), PATH loses any folder with a
// docker binary, and a fake `docker` first on PATH (also CDK_DOCKER) records any call.
const work = mkdtempSync(join(tmpdir(), "signet-synth-"));
const outdir = join(work, "cdk.out");
const dockerLog = join(work, "docker-called");
let synth: { status: number | null; output: string };

function offlineEnv(): NodeJS.ProcessEnv {
  const fakeBin = join(work, "bin");
  spawnSync("mkdir", ["-p", fakeBin]);
  const fakeDocker = join(fakeBin, "docker");
  writeFileSync(fakeDocker, `#!/bin/sh\necho "$@" >> "${dockerLog}"\nexit 1\n`);
  chmodSync(fakeDocker, 0o755);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("AWS_") && !name.startsWith("CDK_")) env[name] = value;
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir && !existsSync(join(dir, "docker")));
  return {
    ...env,
    PATH: [fakeBin, ...path].join(delimiter),
    CDK_DOCKER: fakeDocker,
    AWS_CONFIG_FILE: join(work, "no-aws-config"),
    AWS_SHARED_CREDENTIALS_FILE: join(work, "no-aws-credentials"),
    AWS_EC2_METADATA_DISABLED: "true",
  };
}

beforeAll(() => {
  const run = spawnSync(
    "npx",
    ["cdk", "synth", "-q", "-c", "senderEmail=noreply@example.com", "-c", `libreOfficeBaseImageDigest=${testBaseImageDigest}`, "-o", outdir],
    {
      cwd: repoRoot,
      env: offlineEnv(),
      encoding: "utf8",
      timeout: SYNTH_TIMEOUT_MS,
    },
  );
  synth = { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}, SYNTH_TIMEOUT_MS + 60_000);

type Template = { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
const template = () => JSON.parse(readFileSync(join(outdir, "Signet.template.json"), "utf8")) as Template;

/** bundleOf finds the synthesized code of a function: the zip asset's index.mjs or the image's <name>.mjs. */
function bundleOf(name: string): string {
  const props = template().Resources[functionLogicalId(name)]!.Properties;
  const code = props.Code as { S3Key?: string; ImageUri?: unknown };
  if (code.S3Key) return join(outdir, `asset.${code.S3Key.replace(/\.zip$/, "")}`, "index.mjs");
  const tag = /:([0-9a-f]{64})/.exec(JSON.stringify(code.ImageUri))![1]!;
  return join(outdir, `asset.${tag}`, "app", `${name}.mjs`);
}

/** lambdaEnv is a function's environment from the template, references replaced by sample names. */
function lambdaEnv(name: string): Record<string, string> {
  const props = template().Resources[functionLogicalId(name)]!.Properties;
  const variables = (props.Environment as { Variables: Record<string, unknown> }).Variables;
  const env: Record<string, string> = { AWS_LAMBDA_FUNCTION_NAME: `Signet-${name}`, AWS_REGION: "eu-west-1" };
  for (const [key, value] of Object.entries(variables)) env[key] = typeof value === "string" ? value : `sample-${key.toLowerCase()}`;
  return env;
}

describe("npx cdk synth offline", () => {
  it("succeeds without AWS credentials and without calling Docker", () => {
    expect(synth.status, synth.output.slice(-3000)).toBe(0);
    expect(existsSync(dockerLog), existsSync(dockerLog) ? readFileSync(dockerLog, "utf8") : "").toBe(false);
    expect(existsSync(join(outdir, "Signet.template.json"))).toBe(true);
  });

  it("leaves the LibreOffice image as a build folder for deploy time: Dockerfile, fonts, warm-up, bundles", () => {
    const assets = JSON.parse(readFileSync(join(outdir, "Signet.assets.json"), "utf8")) as {
      dockerImages: Record<string, { source: { directory?: string; executable?: string[]; platform?: string; dockerBuildArgs?: Record<string, string> } }>;
    };
    const images = Object.values(assets.dockerImages);
    expect(images).toHaveLength(1); // the office function's: sign, annotate and convert are zips
    expect(images[0]!.source.executable).toBeUndefined();
    expect(images[0]!.source.platform).toBe("linux/amd64");
    const dir = join(outdir, images[0]!.source.directory!);
    // FROM the base image pinned by the -c libreOfficeBaseImageDigest given above, never the bare tag.
    expect(readFileSync(join(dir, "Dockerfile"), "utf8")).toMatch(/^FROM \$\{BASE_IMAGE\}@\$\{BASE_DIGEST\}$/m);
    expect(images[0]!.source.dockerBuildArgs).toEqual({
      BASE_IMAGE: libreOfficeBaseImage,
      BASE_DIGEST: testBaseImageDigest,
    });
    for (const file of [
      "fonts/Carlito-Regular.ttf",
      "fonts/Caladea-Regular.ttf",
      "warmup/warmup.docx",
      "warmup/registrymodifications.xcu",
      "app/uno-driver.py",
      "app/office.mjs",
    ]) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    // Only the office function's bundle: the signing code and its fonts are not in the image.
    expect(readdirSync(join(dir, "app")).filter((file) => file.endsWith(".mjs"))).toEqual(["office.mjs"]);
    expect(existsSync(join(dir, "app/assets"))).toBe(false);
    // The profile template is made with the settings every profile is seeded with.
    expect(readFileSync(join(dir, "warmup/registrymodifications.xcu"), "utf8")).toBe(registryModificationsText());
  });

  it("ships the run-time files beside the bundles that read them", () => {
    expect(existsSync(join(bundleOf("docs"), "..", "api-reference.standalone.js"))).toBe(true);
    // annotate's SVG renderer and WebP decoder load their WebAssembly from beside the bundle
    // (functions/wiring/pictures.ts): the very files of the installed packages, and the font SVG text is drawn with.
    const annotateDir = join(bundleOf("annotate"), "..");
    for (const wasm of [RESVG_WASM, RESVG_GLUE, WEBP_WASM, WEBP_GLUE]) {
      const shipped = join(annotateDir, wasm.file);
      expect(existsSync(shipped), wasm.file).toBe(true);
      expect(readFileSync(shipped).equals(readFileSync(join(repoRoot, "node_modules", wasm.module))), wasm.file).toBe(true);
      expect(readFileSync(bundleOf("annotate"), "utf8"), wasm.file).toContain(wasm.file);
    }
    expect(existsSync(join(annotateDir, "assets", "fonts", "DejaVuSans.ttf"))).toBe(true);
    expect(lambdaEnv("annotate").SIGNET_FONTS_DIR).toBe("/var/task/assets/fonts");
  });

  it("inlines the request samples of docs/samples into the openapi bundle (the docs page loads /openapi.json; no file of docs/ is shipped)", () => {
    // A line of the convert sample free of quotes, which a minifier might escape differently.
    const line = "-F file=@examples/files/contract.docx -o contract.pdf";
    expect(readFileSync(join(repoRoot, "docs", "samples", "convert.sh"), "utf8")).toContain(line);
    expect(readFileSync(bundleOf("openapi"), "utf8").includes(line)).toBe(true);
  });

  it("produces ESM bundles that load on Node 22 with exactly the deployed environment, and answer the sample events", () => {
    const names = Object.entries(template().Resources)
      .filter(([, resource]) => resource.Type === "AWS::Lambda::Function")
      .map(([id]) => id)
      // (not CDK's own custom resource that empties the office VPC's default security group)
      .filter((id) => !id.startsWith("Custom"));
    const jobs = names.map((id) => {
      const name = id
        .replace(/Function$/, "")
        .replace(/([a-z])([A-Z])/g, "$1-$2")
        .toLowerCase();
      const file = bundleOf(name);
      // Paths into the task root (/var/task) point at the bundle's folder here.
      const env = Object.fromEntries(Object.entries(lambdaEnv(name)).map(([k, v]) => [k, v.replace(/^\/var\/task(?=\/|$)/, join(file, ".."))]));
      return { name, file, env };
    });
    const samples: Record<string, string> = { health: "health", docs: "docs", fallback: "fallback-not-found", info: "info" };
    // One child on the Node 22 of node_modules/.bin; config is read per bundle at its import.
    const script = `
      const jobs = ${JSON.stringify(jobs)};
      const samples = ${JSON.stringify(samples)};
      const fs = await import("node:fs");
      const results = {};
      const base = { ...process.env };
      for (const job of jobs) {
        process.env = { ...base, ...job.env };
        try {
          const mod = await import(job.file);
          results[job.name] = { handler: typeof mod.handler };
          const sample = samples[job.name];
          if (sample) {
            const event = JSON.parse(fs.readFileSync(${JSON.stringify(join(repoRoot, "events"))} + "/" + sample + ".json", "utf8"));
            const response = await mod.handler(event, { awsRequestId: "r", functionName: job.name, getRemainingTimeInMillis: () => 10000 });
            results[job.name].status = response.statusCode;
            results[job.name].body = response.body.slice(0, 200);
          }
        } catch (error) {
          results[job.name] = { error: String(error && error.stack || error) };
        }
      }
      console.log("RESULTS" + JSON.stringify(results));
    `;
    const run = spawnSync(join(repoRoot, "node_modules", ".bin", "node"), ["--input-type=module", "-e", script], {
      cwd: work,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", HOME: work },
      timeout: 120_000,
    });
    const line = run.stdout.split("\n").find((l) => l.startsWith("RESULTS"));
    expect(line, run.stderr.slice(-2000)).toBeDefined();
    const results = JSON.parse(line!.slice("RESULTS".length)) as Record<string, { handler?: string; status?: number; error?: string; body?: string }>;
    expect(Object.keys(results).sort()).toEqual(jobs.map((j) => j.name).sort());
    for (const [name, result] of Object.entries(results)) expect(result, name).toMatchObject({ handler: "function" });
    expect(results.health).toMatchObject({ status: 200 });
    expect(JSON.parse(results.health!.body!)).toMatchObject({ status: "healthy" });
    expect(results.info).toMatchObject({ status: 200 });
    expect(results.docs).toMatchObject({ status: 200 });
    expect(results.fallback).toMatchObject({ status: 404 });
  });
});
