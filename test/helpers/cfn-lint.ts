import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "../../infra/bundling.ts";

/** toolsCfnLint is where scripts/setup.mjs installs cfn-lint with pip when the Python package index is reachable. */
const toolsCfnLint = join(repoRoot, ".tools", "python", "bin", "cfn-lint");

/** CfnLintMatch is one finding of `cfn-lint --format json`. */
export interface CfnLintMatch {
  Level: "Error" | "Warning" | "Informational";
  Rule: { Id: string };
  Message: string;
  Location: { Path: Array<string | number> };
}

/**
 * findCfnLint gives AWS's cfn-lint (Python): the project's tools environment first, then one on
 * PATH; throws saying how to get it otherwise (the npm package named cfn-lint is another project).
 */
function findCfnLint(): string {
  if (existsSync(toolsCfnLint)) return toolsCfnLint;
  if (spawnSync("cfn-lint", ["--version"], { stdio: "ignore" }).status === 0) return "cfn-lint";
  throw new Error(
    "AWS's cfn-lint (Python) is not installed: run `node scripts/setup.mjs --test` where the Python package index is reachable " +
      "(it installs cfn-lint into .tools/python with pip), or `pipx install cfn-lint`, or put a cfn-lint on PATH. " +
      "The npm package named cfn-lint is a different project.",
  );
}

/** cfnLint lints one template for the given regions (cfn-lint's default, us-east-1, when none) and returns every finding. */
export function cfnLint(template: string, regions: readonly string[] = []): CfnLintMatch[] {
  const args = ["--format", "json", ...(regions.length > 0 ? ["--regions", ...regions] : []), "--", template];
  const result = spawnSync(findCfnLint(), args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  // cfn-lint's exit status is a bit mask of the levels found (2, 4, 8 and sums); 1 alone is its own failure.
  if (result.status === 1 || !result.stdout.trim().startsWith("[")) {
    throw new Error(`cfn-lint failed (exit ${result.status}): ${result.stderr || result.stdout}`);
  }
  return JSON.parse(result.stdout) as CfnLintMatch[];
}
