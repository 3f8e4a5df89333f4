import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { inject } from "vitest";
import { createApp } from "../../infra/app.ts";
import { repoRoot } from "../../infra/bundling.ts";

declare module "vitest" {
  interface ProvidedContext {
    /** The folder test/helpers/global-setup.ts made for this run's syntheses (synthesize). */
    synthCacheDir: string;
  }
}

/** cdkJsonContext is the feature-flag context of cdk.json, so tests synthesize what the CLI does. */
export const cdkJsonContext = (JSON.parse(readFileSync(join(repoRoot, "cdk.json"), "utf8")) as { context: Record<string, unknown> }).context;

/** Synthesized is one synthesized Signet app. */
export interface Synthesized {
  /** The stack's name (its files in outdir are named after it). */
  stackName: string;
  template: Template;
  /** The raw CloudFormation template. */
  json: {
    Resources: Record<string, { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;
    Outputs: Record<string, unknown>;
  };
  outdir: string;
}

/**
 * testBaseImageDigest stands in for the reviewed digest of the LibreOffice base image
 * (libreOfficeBaseImageDigest): well-formed, never pulled (tests never run Docker).
 */
export const testBaseImageDigest = `sha256:${"0123456789abcdef".repeat(4)}`;

/**
 * SYNTH_TIMEOUT_MS is what a hook or test allows per synthesis (bundling every function with
 * esbuild, the image's app folder, the assets): one took longer than 180 s at load 21 on 2 shared
 * cores (stack.test.ts's hook timed out there), a few seconds' work on an idle machine. A ceiling
 * for a loaded CI machine, not a guess at its speed; a test needing N syntheses allows N times it.
 */
export const SYNTH_TIMEOUT_MS = 900_000;

/**
 * synthesize builds the app in-process with cdk.json's flags plus the given `-c` context (and the
 * test base image digest unless the context says otherwise). Under vitest one context is
 * synthesized once per run: the cloud assembly is kept in the run's folder (the global setup makes
 * it, empty, and removes it after the run) and a later test file asking for the same context reads
 * that assembly back. Bundling every function with esbuild is most of a synthesis (about 20 s on
 * two idle cores), and ten infra test files ask for the same default context. The code under
 * test cannot change during a run, so the kept assembly is the one a new synthesis would write.
 */
export function synthesize(context: Record<string, string>, options: SynthesizeOptions = {}): Synthesized {
  const { bundle = true } = options;
  const kept = keptAssembly(context, bundle);
  if (kept && existsSync(join(kept, ASSEMBLY_DONE))) return readAssembly(kept);
  const outdir = mkdtempSync(join(tmpdir(), "signet-cdk-"));
  // CDK's own switch (what `cdk deploy` of another stack does): no stack's code is bundled.
  const skipBundling = bundle ? {} : { "aws:cdk:bundling-stacks": [] };
  const app = new App({ outdir, context: { ...cdkJsonContext, libreOfficeBaseImageDigest: testBaseImageDigest, ...skipBundling, ...context } });
  const { stack } = createApp(app);
  const template = Template.fromStack(stack);
  const synthesized = { stackName: stack.stackName, template, json: template.toJSON() as Synthesized["json"], outdir };
  if (!kept) return synthesized;
  writeFileSync(join(outdir, ASSEMBLY_DONE), stack.stackName);
  try {
    // Whole or not at all: a second worker that synthesized the same context meanwhile keeps its own.
    renameSync(outdir, kept);
    return { ...synthesized, outdir: kept };
  } catch {
    return synthesized;
  }
}

/** SynthesizeOptions: `bundle: false` leaves the functions' code unbundled, for tests that read only the template (the resources are the same). */
export interface SynthesizeOptions {
  bundle?: boolean;
}

/** ASSEMBLY_DONE marks a kept assembly as complete; it holds the stack's name. */
const ASSEMBLY_DONE = "signet-synthesized";

/** keptAssembly is where this run keeps the assembly of `context` (undefined outside vitest). */
function keptAssembly(context: Record<string, string>, bundle: boolean): string | undefined {
  let root: string;
  try {
    root = inject("synthCacheDir");
  } catch {
    return undefined;
  }
  if (!root) return undefined;
  const key = JSON.stringify([bundle, ...Object.entries(context).sort(([a], [b]) => a.localeCompare(b))]);
  return join(root, createHash("sha256").update(key).digest("hex").slice(0, 24));
}

/** readAssembly is a kept synthesis, read back from its folder. */
function readAssembly(outdir: string): Synthesized {
  const stackName = readFileSync(join(outdir, ASSEMBLY_DONE), "utf8");
  const json = JSON.parse(readFileSync(join(outdir, `${stackName}.template.json`), "utf8")) as Synthesized["json"];
  return { stackName, template: Template.fromJSON(json), json, outdir };
}

/**
 * cdkHelperFunction tells CDK's own functions from Signet's: the custom resource that empties the
 * office VPC's default security group, and the one that looks up S3's prefix list at deploy
 * (AwsCustomResource's singleton, always this id).
 */
export const cdkHelperFunction = (logicalId: string): boolean => /^(Custom|AWS679f53fac002430cb0da5b7982bd2287)/.test(logicalId);

/** resourcesOfType lists [logicalId, resource] pairs of one CloudFormation type. */
export function resourcesOfType(json: Synthesized["json"], type: string): Array<[string, Synthesized["json"]["Resources"][string]]> {
  return Object.entries(json.Resources).filter(([, resource]) => resource.Type === type);
}

/** apiPaths maps every AWS::ApiGateway::Resource logical id to its full path ("/v1/sign"). */
export function apiPaths(json: Synthesized["json"]): Map<string, string> {
  const resources = new Map(resourcesOfType(json, "AWS::ApiGateway::Resource"));
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const known = paths.get(id);
    if (known) return known;
    const resource = resources.get(id)!;
    const parent = resource.Properties.ParentId as { Ref?: string };
    const prefix = parent.Ref && resources.has(parent.Ref) ? pathOf(parent.Ref) : "";
    const path = `${prefix}/${resource.Properties.PathPart as string}`;
    paths.set(id, path);
    return path;
  };
  for (const id of resources.keys()) pathOf(id);
  return paths;
}
