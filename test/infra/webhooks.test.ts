import { beforeAll, describe, expect, it } from "vitest";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { resourcesOfType, SYNTH_TIMEOUT_MS, synthesize, type Synthesized } from "#test/helpers/infra-synth.ts";

// Webhooks on AWS: the secret routes touch only WHSEC# items; the webhook sweeper, run every minute
// by EventBridge, touches only the deliveries, their due queue and the secrets (functions/adapters/dynamodb-webhook-store.ts).
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, SYNTH_TIMEOUT_MS);

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const fnProps = (name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;
const tableArn = () => ({ "Fn::GetAtt": [resourcesOfType(synth.json, "AWS::DynamoDB::Table").find(([id]) => id.startsWith("KeyTable"))![0], "Arn"] });

function statementsOf(name: string): Statement[] {
  const role = (fnProps(name).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
  return resourcesOfType(synth.json, "AWS::IAM::Policy")
    .filter(([, policy]) => (policy.Properties.Roles as Array<{ Ref: string }>).some((ref) => ref.Ref === role))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
    .filter((statement) => !JSON.stringify(statement.Action).includes("logs:"));
}

describe("webhooks on AWS", () => {
  it("the webhook sweeper runs every minute, with no retries of a missed run", () => {
    const sweeper = functionLogicalId("webhook-sweeper");
    const rules = resourcesOfType(synth.json, "AWS::Events::Rule").filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(sweeper));
    expect(rules).toHaveLength(1);
    expect(rules[0]![1].Properties).toMatchObject({ ScheduleExpression: "rate(1 minute)", State: "ENABLED" });
    expect((rules[0]![1].Properties.Targets as Array<{ RetryPolicy: unknown }>)[0]!.RetryPolicy).toEqual({
      MaximumEventAgeInSeconds: 120,
      MaximumRetryAttempts: 0,
    });
    expect(fnProps("webhook-sweeper")).toMatchObject({ Timeout: 60, Runtime: "nodejs22.x" });
    // It must reach receivers on the internet: not in a VPC (the safe fetcher refuses private addresses).
    expect(fnProps("webhook-sweeper").VpcConfig).toBeUndefined();
  });

  it("the sweeper may touch only deliveries, the due queue, the secrets, and the jobs it expires (job.expired) with their jobs/ objects", () => {
    const statements = statementsOf("webhook-sweeper");
    expect(statements).toEqual(
      expect.arrayContaining([
        {
          Effect: "Allow",
          Action: ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"],
          Resource: tableArn(),
          Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["WEBHOOK#*", "WEBHOOK-DUE", "WHSEC#*"] } },
        },
        {
          Effect: "Allow",
          Action: ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
          Resource: tableArn(),
          Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["JOB#*", "JOBX"] } },
        },
        { Effect: "Allow", Action: "dynamodb:Query", Resource: tableArn(), Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["JOBX"] } } },
        expect.objectContaining({ Action: ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"] }),
      ]),
    );
    expect(statements).toHaveLength(4);
    const objects = statements.find((statement) => JSON.stringify(statement.Action).includes("s3:"));
    expect(JSON.stringify(objects?.Resource)).toContain("/jobs/*");
  });

  it.each(["webhooks-secret", "webhooks-secret-rotate"])("%s reads and puts WHSEC# items only, besides the per-key request count", (name) => {
    const statements = statementsOf(name);
    expect(statements).toContainEqual({
      Effect: "Allow",
      Action: ["dynamodb:GetItem", "dynamodb:PutItem"],
      Resource: tableArn(),
      Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["WHSEC#*"] } },
    });
    const unconditioned = statements.filter((statement) => statement.Condition === undefined).flatMap((statement) => [statement.Action].flat());
    expect(unconditioned).toEqual(["dynamodb:UpdateItem"]);
  });
});
