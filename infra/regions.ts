import { Annotations, Stack, Token } from "aws-cdk-lib";
import type { Construct } from "constructs";

/**
 * Regions. Not every region's CloudFormation knows every resource type the stack
 * creates: a template naming one it lacks fails the deploy at once ("Unrecognized resource
 * types"). regionGaps lists, per region, what is missing, as cfn-lint 1.51's region schemas say
 * (AWS's CloudFormation resource specifications); test/infra/template-checks.test.ts lints the
 * templates for every region and fails when this table and cfn-lint disagree.
 *
 * - "ses": AWS::SES::EmailIdentity and AWS::SES::ConfigurationSet. Signet mails its codes with
 *   SES, so these regions are refused at synth.
 * - "budget": AWS::Budgets::Budget. The budget (-c budgetUsd) is left out there with a warning;
 *   budgets are account-wide, so one made in another region (or the console) does the same job.
 *
 * What no template shows: Lambda response streaming (sign, annotate, convert) is "not yet available
 * in all AWS Regions" (Lambda documentation, AWS Capabilities by Region); that is not checkable
 * offline and is said so in docs/aws.md.
 */
type RegionGap = "ses" | "budget";

/** regionGaps are the regions (of those cfn-lint knows) lacking a resource type the stack creates. */
export const regionGaps: Readonly<Record<string, readonly RegionGap[]>> = {
  "af-south-1": ["budget"],
  "ap-east-1": ["budget", "ses"],
  "ap-east-2": ["budget", "ses"],
  "ap-northeast-3": ["budget"],
  "ap-south-2": ["budget"],
  "ap-southeast-3": ["budget"],
  "ap-southeast-4": ["budget", "ses"],
  "ap-southeast-5": ["budget"],
  "ap-southeast-6": ["budget", "ses"],
  "ap-southeast-7": ["budget", "ses"],
  "ca-west-1": ["budget"],
  "cn-north-1": ["ses"],
  "cn-northwest-1": ["ses"],
  "eu-central-2": ["budget"],
  "eu-north-1": ["budget"],
  "eu-south-1": ["budget"],
  "eu-south-2": ["budget", "ses"],
  "il-central-1": ["budget"],
  "me-central-1": ["budget"],
  "me-south-1": ["budget"],
  "mx-central-1": ["budget", "ses"],
  "us-gov-east-1": ["budget"],
  "us-gov-west-1": ["budget"],
};

/** checkedRegions are the regions regionGaps was derived for (cfn-lint's list without the isolated partitions). */
export const checkedRegions = [
  "af-south-1",
  "ap-east-1",
  "ap-east-2",
  "ap-northeast-1",
  "ap-northeast-2",
  "ap-northeast-3",
  "ap-south-1",
  "ap-south-2",
  "ap-southeast-1",
  "ap-southeast-2",
  "ap-southeast-3",
  "ap-southeast-4",
  "ap-southeast-5",
  "ap-southeast-6",
  "ap-southeast-7",
  "ca-central-1",
  "ca-west-1",
  "cn-north-1",
  "cn-northwest-1",
  "eu-central-1",
  "eu-central-2",
  "eu-north-1",
  "eu-south-1",
  "eu-south-2",
  "eu-west-1",
  "eu-west-2",
  "eu-west-3",
  "il-central-1",
  "me-central-1",
  "me-south-1",
  "mx-central-1",
  "sa-east-1",
  "us-east-1",
  "us-east-2",
  "us-gov-east-1",
  "us-gov-west-1",
  "us-west-1",
  "us-west-2",
] as const;

/** knownGoodRegions have every resource type the stack creates, budget included. */
export const knownGoodRegions: readonly string[] = checkedRegions.filter((region) => !(region in regionGaps));

/**
 * checkRegion refuses, at synth, a region without SES, and says whether the budget can be made
 * there (a warning on the stack when it cannot). A region unknown at synth (no CDK_DEFAULT_REGION,
 * as in the tests) or unknown to the table passes, with a note.
 */
export function checkRegion(scope: Construct, options: { budget: boolean }): { budget: boolean } {
  const region = Stack.of(scope).region;
  if (Token.isUnresolved(region)) return options;
  if (!(checkedRegions as readonly string[]).includes(region)) {
    Annotations.of(scope).addWarningV2(
      "signet:region-unchecked",
      `Region ${region} is not in Signet's region table (infra/regions.ts): whether SES, Budgets and Lambda response streaming exist there was not checked. Known to work: ${knownGoodRegions.join(", ")}.`,
    );
    return options;
  }
  const gaps = regionGaps[region] ?? [];
  if (gaps.includes("ses")) {
    throw new Error(
      `Region ${region} has no Amazon SES in CloudFormation (AWS::SES::EmailIdentity, AWS::SES::ConfigurationSet), and Signet mails its verification codes with SES. ` +
        `Deploy to a region that has it, for example ${["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-northeast-1"].join(", ")} ` +
        "(all: knownGoodRegions in infra/regions.ts, and docs/aws.md): AWS_REGION=eu-west-1 npx cdk deploy ...",
    );
  }
  if (options.budget && gaps.includes("budget")) {
    Annotations.of(scope).addWarningV2(
      "signet:budget-skipped",
      `Region ${region} has no AWS::Budgets::Budget in CloudFormation: the budget (-c budgetUsd) is left out. Budgets cover the whole account, ` +
        "so make it in the Billing console, or with a small stack in us-east-1, instead.",
    );
    return { budget: false };
  }
  return options;
}
