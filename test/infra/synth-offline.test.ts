import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { repoRoot } from "../../infra/bundling.ts";
import { libreOfficeBaseImage } from "../../infra/base-image.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { cdkHelperFunction, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";
import { WEBP_GLUE, WEBP_WASM } from "#adapters/jsquash-webp-decoder.ts";
import { registryModificationsText } from "#adapters/libreoffice/profile.ts";
import { RESVG_GLUE, RESVG_WASM } from "#adapters/resvg-svg-renderer.ts";
import { type OfflineRun, runCdkOffline } from "#test/helpers/offline-cdk.ts";

// `npx cdk synth -c senderEmail=...` exactly as a new user runs it in a fresh clone (no digest in
// cdk.json, none given), on a machine with no network, no AWS credentials and no Docker
// (test/helpers/offline-cdk.ts).
const work = mkdtempSync(join(tmpdir(), "signet-synth-"));
const outdir = join(work, "cdk.out");
let synth: OfflineRun;

beforeAll(() => {
  const pin = (JSON.parse(readFileSync(join(repoRoot, "cdk.json"), "utf8")) as { context: Record<string, unknown> }).context.libreOfficeBaseImageDigest;
  expect(pin, "this test needs a cdk.json without a pin, as a fresh clone has").toBeUndefined();
  synth = runCdkOffline(["synth", "-q", "-c", "senderEmail=noreply@example.com", "-o", outdir], SYNTH_TIMEOUT_MS);
}, SYNTH_TIMEOUT_MS + 60_000);

type Template = { Resources: Record<string, { Type: string; Properties: Record<string, unknown> }> };
const template = () => JSON.parse(readFileSync(join(outdir, "Signet.template.json"), "utf8")) as Template;

/** bundleOf finds the synthesized code of a function: the zip asset's index.mjs or the image's <name>.mjs. */
function bundleOf(name: string): string {
  const props = template().Resources[functionLogicalId(name)]!.Properties;
  const code = props.Code as { S3Key?: string; ImageUri?: unknown };
  if (code.S3Key) return join(outdir, `asset.${code.S3Key.replace(/\.zip$/, "")}`, "index.mjs");
  const tag = /:([0-9a-f]{64})/.exec(JSON.stringify(code.ImageUri))![1]!;
  // An image function runs the module its command names (office and office-jobs: office.handler).
  const command = (props.ImageConfig as { Command?: string[] } | undefined)?.Command?.[0];
  return join(outdir, `asset.${tag}`, "app", `${command ? command.replace(/\.handler$/, "") : name}.mjs`);
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
  it("succeeds without network, AWS credentials or Docker, warning that the base image will be resolved at deploy", () => {
    expect(synth.status, synth.output.slice(-3000)).toBe(0);
    expect(existsSync(join(outdir, "Signet.template.json"))).toBe(true);
    expect(synth.output).toMatch(/WARNING The LibreOffice base image is not pinned and the registry is unreachable from here.*it will be resolved at deploy/s);
    expect(synth.output).not.toMatch(/^\s+at /m); // no stack trace anywhere
    expect(synth.cdkJsonChanged).toBe(false); // nothing resolved, nothing recorded
    // Docker was asked only for the digest (the look-up's fallback), never to build: it runs at deploy.
    expect(synth.dockerCalls).toEqual([`buildx imagetools inspect ${libreOfficeBaseImage}`]);
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
    // FROM the bare tag: nothing pinned and the registry out of reach (the warning above); SAM reads
    // the same build argument from the template's asset metadata (docs/aws.md, SAM).
    expect(readFileSync(join(dir, "Dockerfile"), "utf8")).toMatch(/^FROM \$\{BASE_REF\}$/m);
    expect(images[0]!.source.dockerBuildArgs).toEqual({ BASE_REF: libreOfficeBaseImage });
    const office = template().Resources[functionLogicalId("office")] as unknown as { Metadata: Record<string, unknown> };
    expect(office.Metadata["aws:asset:docker-build-args"]).toEqual({ BASE_REF: libreOfficeBaseImage });
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

  it("answers docs/aws.md's SAM commands: the template, function ids, outputs, environment variables and events they name exist", () => {
    const docs = readFileSync(join(repoRoot, "docs", "aws.md"), "utf8");
    const section = docs.slice(docs.indexOf("## Trying a function with SAM"), docs.indexOf("\n## ", docs.indexOf("## Trying a function with SAM") + 3));
    const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!).join("\n");
    const full = JSON.parse(readFileSync(join(outdir, "Signet.template.json"), "utf8")) as Template & { Outputs: Record<string, unknown> };
    expect(commands).toContain("npx cdk synth -q -c senderEmail=");
    for (const [, file] of commands.matchAll(/-t (\S+)/g)) expect(file).toBe("cdk.out/Signet.template.json");
    const invoked = [...commands.matchAll(/sam (?:local invoke|build)(?: -t \S+)? (\w+Function)/g)].map((match) => match[1]!);
    expect(new Set(invoked)).toEqual(new Set(["HealthFunction", "ConvertFunction", "OfficeFunction"]));
    for (const id of invoked) expect(full.Resources[id]?.Type, id).toBe("AWS::Lambda::Function");
    for (const [, event] of commands.matchAll(/-e (events\/\S+)/g)) expect(existsSync(join(repoRoot, event!)), event).toBe(true);
    const outputs = [...section.matchAll(/\$\(out (\w+)\)/g)].map((match) => match[1]!);
    expect(outputs).toContain("OfficeFunctionName");
    for (const output of outputs) expect(Object.keys(full.Outputs), output).toContain(output);
    // Each --env-vars entry sets variables the function has (SAM only overrides existing ones).
    for (const [, id, body] of section.matchAll(/\\?"(\w+Function)\\?": \{([^}]*)\}/g)) {
      const variables = Object.keys((full.Resources[id!]!.Properties.Environment as { Variables: Record<string, unknown> }).Variables);
      for (const [, name] of body!.matchAll(/(SIGNET_\w+)/g)) expect(variables, `${id} ${name}`).toContain(name);
    }
    // sam build finds the office image's Dockerfile and its base through the asset metadata.
    const office = full.Resources.OfficeFunction as unknown as { Metadata: Record<string, unknown> };
    expect(office.Metadata["aws:asset:dockerfile-path"]).toBe("Dockerfile");
    expect(existsSync(join(outdir, office.Metadata["aws:asset:path"] as string, "Dockerfile"))).toBe(true);
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
      // (not CDK's own helpers for the office VPC: the default security group, S3's prefix list)
      .filter((id) => !cdkHelperFunction(id));
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
