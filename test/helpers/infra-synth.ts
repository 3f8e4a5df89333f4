import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { createApp } from "../../infra/app.ts";
import { repoRoot } from "../../infra/bundling.ts";
import type { SignetStack } from "../../infra/signet-stack.ts";

/** cdkJsonContext is the feature-flag context of cdk.json, so tests synthesize what the CLI does. */
export const cdkJsonContext = (JSON.parse(readFileSync(join(repoRoot, "cdk.json"), "utf8")) as { context: Record<string, unknown> }).context;

/** Synthesized is one synthesized Signet app. */
export interface Synthesized {
  stack: SignetStack;
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
 * test base image digest unless the context says otherwise).
 */
export function synthesize(context: Record<string, string>): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), "signet-cdk-"));
  const app = new App({ outdir, context: { ...cdkJsonContext, libreOfficeBaseImageDigest: testBaseImageDigest, ...context } });
  const { stack } = createApp(app);
  const template = Template.fromStack(stack);
  return { stack, template, json: template.toJSON() as Synthesized["json"], outdir };
}

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
