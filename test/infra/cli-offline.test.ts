import { describe, expect, it } from "vitest";
import { SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";
import { runCdkOffline } from "#test/helpers/offline-cdk.ts";

// The CDK commands a new user runs before (or instead of) a deploy, each run as the CLI runs it, on
// a machine with no network, no AWS credentials and no Docker (test/helpers/offline-cdk.ts), with
// no base image digest anywhere and -c requirePinnedBaseImage=true: the strictest setting must
// still not ask for a digest when the command builds nothing (the CLI passes an empty
// aws:cdk:bundling-stacks to ls and destroy; infra/app.ts buildsImages).
const strict = ["-c", "senderEmail=noreply@example.com", "-c", "requirePinnedBaseImage=true"];

describe("cdk commands that build nothing, offline and without a pin", () => {
  it(
    "cdk ls lists the stack",
    () => {
      const run = runCdkOffline(["ls", ...strict], SYNTH_TIMEOUT_MS);
      expect(run.status, run.output.slice(-3000)).toBe(0);
      expect(run.output.trim().split("\n").at(-1)).toBe("Signet");
      expect(run.output).not.toMatch(/libreOfficeBaseImageDigest|image:pin/);
      expect(run.dockerCalls).toEqual([]);
    },
    SYNTH_TIMEOUT_MS + 60_000,
  );

  it(
    "cdk destroy gets past the app to AWS (here: no account to resolve), never to the digest",
    () => {
      const run = runCdkOffline(["destroy", "--force", ...strict], SYNTH_TIMEOUT_MS);
      expect(run.output).toMatch(/Signet: destroying/);
      expect(run.output).toMatch(/Unable to resolve AWS account/);
      expect(run.output).not.toMatch(/libreOfficeBaseImageDigest|image:pin/);
      expect(run.dockerCalls).toEqual([]);
    },
    SYNTH_TIMEOUT_MS + 60_000,
  );

  it(
    "cdk synth with requirePinnedBaseImage=true and no digest stops with one clean message, no stack trace, and looks nothing up",
    () => {
      const run = runCdkOffline(["synth", "-q", ...strict], SYNTH_TIMEOUT_MS);
      expect(run.status).not.toBe(0);
      expect(run.output).toMatch(
        /^Context libreOfficeBaseImageDigest is missing, and -c requirePinnedBaseImage=true asks for a reviewed digest.*`npm run image:pin`/m,
      );
      expect(run.output).not.toMatch(/^\s+at /m);
      expect(run.dockerCalls).toEqual([]);
      expect(run.cdkJsonChanged).toBe(false);
    },
    SYNTH_TIMEOUT_MS + 60_000,
  );
});
