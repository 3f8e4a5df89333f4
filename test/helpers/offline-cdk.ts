import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { repoRoot } from "../../infra/bundling.ts";

/** OfflineRun is one `npx cdk ...` run offline: its exit status, stdout and stderr together, the fake docker's calls, whether cdk.json changed. */
export interface OfflineRun {
  status: number | null;
  output: string;
  dockerCalls: string[];
  cdkJsonChanged: boolean;
}

/**
 * runCdkOffline runs `npx cdk <args>` in the repository as a user would on a machine with no
 * network, no AWS credentials and no Docker: in a network namespace of its own (`unshare -rn`:
 * only a loopback that is down), every AWS_* and CDK_* variable removed (credential files pointed
 * nowhere), PATH without any folder holding a docker binary, and a fake `docker` first on PATH
 * (also CDK_DOCKER) that records each call and fails.
 */
export function runCdkOffline(args: string[], timeoutMs: number): OfflineRun {
  const work = mkdtempSync(join(tmpdir(), "signet-cdk-offline-"));
  const fakeBin = join(work, "bin");
  const dockerLog = join(work, "docker-called");
  mkdirSync(fakeBin);
  const fakeDocker = join(fakeBin, "docker");
  writeFileSync(fakeDocker, `#!/bin/sh\necho "$@" >> "${dockerLog}"\nexit 1\n`);
  chmodSync(fakeDocker, 0o755);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith("AWS_") && !name.startsWith("CDK_")) env[name] = value;
  const path = (process.env.PATH ?? "").split(delimiter).filter((dir) => dir && !existsSync(join(dir, "docker")));
  const cdkJson = readFileSync(join(repoRoot, "cdk.json"), "utf8");
  const run = spawnSync("unshare", ["-rn", "npx", "cdk", ...args], {
    cwd: repoRoot,
    env: {
      ...env,
      PATH: [fakeBin, ...path].join(delimiter),
      CDK_DOCKER: fakeDocker,
      AWS_CONFIG_FILE: join(work, "no-aws-config"),
      AWS_SHARED_CREDENTIALS_FILE: join(work, "no-aws-credentials"),
      AWS_EC2_METADATA_DISABLED: "true",
    },
    encoding: "utf8",
    timeout: timeoutMs,
  });
  return {
    status: run.status,
    output: `${run.stdout}\n${run.stderr}`,
    dockerCalls: existsSync(dockerLog) ? readFileSync(dockerLog, "utf8").trim().split("\n") : [],
    cdkJsonChanged: readFileSync(join(repoRoot, "cdk.json"), "utf8") !== cdkJson,
  };
}
