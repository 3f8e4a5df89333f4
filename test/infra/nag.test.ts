import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { App, Stack, Validations } from "aws-cdk-lib";
import { Bucket } from "aws-cdk-lib/aws-s3";
import { AwsSolutionsChecks } from "cdk-nag";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../infra/app.ts";
import { cdkJsonContext, testBaseImageDigest, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

// cdk-nag's AwsSolutions pack on the synthesized stack. Every finding the stack keeps is
// acknowledged with its reason in infra/nag.ts; anything else is a new finding and fails here.

interface Violation {
  ruleName: string;
  severity: string;
  violatingConstructs: Array<{ constructPath: string }>;
}

/**
 * nag synthesizes the app with the given context under AwsSolutionsChecks and returns its
 * violations. The functions' code is not bundled (CDK's own `aws:cdk:bundling-stacks` context,
 * what `cdk deploy` of another stack does): the pack judges resources and their properties, never
 * what a code asset holds, and bundling every function with esbuild was most of each synthesis.
 */
function nag(context: Record<string, string>, extra?: (app: App) => void): Violation[] {
  const outdir = mkdtempSync(join(tmpdir(), "signet-nag-"));
  const app = new App({
    outdir,
    context: { ...cdkJsonContext, libreOfficeBaseImageDigest: testBaseImageDigest, "aws:cdk:bundling-stacks": [], ...context },
  });
  createApp(app);
  extra?.(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  try {
    app.synth();
  } catch {
    // A failed validation may also throw; the report below says what failed.
  }
  const report = join(outdir, "validation-report.json");
  expect(existsSync(report), "cdk-nag wrote no validation report").toBe(true);
  const parsed = JSON.parse(readFileSync(report, "utf8")) as { pluginReports: Array<{ pluginName: string; violations: Violation[] }> };
  // A clean run reports no plugin at all; the canary below shows the pack does run and report.
  return parsed.pluginReports.find((r) => r.pluginName === "AwsSolutions")?.violations ?? [];
}

const describeViolations = (violations: Violation[]) =>
  violations.flatMap((v) => v.violatingConstructs.map((c) => `${v.severity} ${v.ruleName} at ${c.constructPath}`));

let sandboxDefaults: Violation[];
let everything: Violation[];
beforeAll(() => {
  sandboxDefaults = nag({ senderEmail: "noreply@example.com" });
  // Every option on, production SES; plus a stack of its own with an unencrypted-by-choice,
  // unlogged bucket, to show the pack reports what nobody acknowledged.
  everything = nag(
    {
      senderEmail: "noreply@example.com",
      sesSandbox: "false",
      alarmEmail: "ops@example.com",
      budgetUsd: "20",
      identityP12PasswordParameter: "/signet/identity-p12-password",
      tsaUrl: "https://tsa.example.com/tsr",
      corsOrigin: "https://app.example.com",
    },
    (app) => new Bucket(new Stack(app, "NagCanary"), "UnloggedBucket"),
  );
}, 2 * SYNTH_TIMEOUT_MS);

describe("cdk-nag AwsSolutions", () => {
  it("finds nothing unacknowledged in the default deployment", () => {
    expect(describeViolations(sandboxDefaults)).toEqual([]);
  });

  it("finds nothing unacknowledged in Signet with every option on", () => {
    expect(describeViolations(everything).filter((line) => !line.includes(" at NagCanary/"))).toEqual([]);
  });

  it("does report a finding nobody acknowledged (the canary bucket has no access logs)", () => {
    expect(describeViolations(everything).some((line) => line.includes("AwsSolutions-S1") && line.includes(" at NagCanary/"))).toBe(true);
  });
});
