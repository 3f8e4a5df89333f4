import { readFileSync } from "node:fs";
import { App, Stack } from "aws-cdk-lib";
import { Annotations, Match } from "aws-cdk-lib/assertions";
import { describe, expect, it } from "vitest";
import { checkRegion, knownGoodRegions, regionGaps } from "../../infra/regions.ts";

// The region check runs before anything else is built (infra/regions.ts; the table
// itself is checked against cfn-lint's region schemas in template-checks.test.ts).
const stackIn = (region?: string) => new Stack(new App(), "Signet", region ? { env: { account: "123456789012", region } } : {});
const warnings = (stack: Stack) =>
  Annotations.fromStack(stack)
    .findWarning("*", Match.anyValue())
    .map((found) => String(found.entry.data));

describe("checkRegion", () => {
  it("refuses a region without SES, naming regions that have it", () => {
    expect(() => checkRegion(stackIn("eu-south-2"), { budget: false })).toThrow(/eu-south-2 has no Amazon SES .* for example us-east-1/);
  });

  it("leaves the budget out, with a warning, where CloudFormation has no AWS::Budgets::Budget", () => {
    const stack = stackIn("eu-north-1");
    expect(checkRegion(stack, { budget: true })).toEqual({ budget: false });
    expect(warnings(stack).join("\n")).toMatch(/eu-north-1 has no AWS::Budgets::Budget .* left out/);
  });

  it("keeps everything in a known-good region, and says so for an unknown one", () => {
    const good = stackIn("eu-west-1");
    expect(checkRegion(good, { budget: true })).toEqual({ budget: true });
    expect(warnings(good)).toEqual([]);
    const unknown = stackIn("xx-example-1");
    expect(checkRegion(unknown, { budget: true })).toEqual({ budget: true });
    expect(warnings(unknown).join("\n")).toMatch(/not in Signet's region table/);
    // No region at synth (the tests, a `cdk synth` without credentials): nothing to check.
    expect(checkRegion(stackIn(), { budget: true })).toEqual({ budget: true });
  });

  it("lists the usual first regions among the known-good ones, none with a gap", () => {
    for (const region of ["us-east-1", "us-east-2", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1", "ap-southeast-2"]) {
      expect(knownGoodRegions).toContain(region);
    }
    for (const region of knownGoodRegions) expect(regionGaps[region]).toBeUndefined();
  });

  it("are the regions docs/aws.md lists as known to work, and the gaps it names", () => {
    const page = readFileSync(new URL("../../docs/aws.md", import.meta.url), "utf8").replace(/\s+/g, " ");
    const listed = (pattern: RegExp) => [...(pattern.exec(page)?.[1] ?? "").matchAll(/`([a-z]+(?:-[a-z]+)+-\d)`/g)].map((match) => match[1]).sort();
    expect(listed(/Known to work: (.*?): CloudFormation there/)).toEqual([...knownGoodRegions].sort());
    const withGap = (gap: "ses" | "budget") => Object.entries(regionGaps).filter(([, gaps]) => gaps.includes(gap));
    expect(listed(/No SES in CloudFormation: (.*?)\. Signet/)).toEqual(
      withGap("ses")
        .map(([region]) => region)
        .sort(),
    );
    const budgetOnly = withGap("budget").filter(([, gaps]) => !gaps.includes("ses"));
    expect(listed(/No `AWS::Budgets::Budget`: (.*?) \(and the SES-less/)).toEqual(budgetOnly.map(([region]) => region).sort());
  });
});
