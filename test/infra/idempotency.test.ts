import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "#http/routes.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { resourcesOfType, SYNTH_TIMEOUT_MS, synthesize, type Synthesized } from "#test/helpers/infra-synth.ts";

// Idempotency-Key records (functions/adapters/dynamodb-idempotency-store.ts): the key table's IDEM#
// items and the uploads bucket's idempotency/ folder, for the idempotent routes' functions only.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, SYNTH_TIMEOUT_MS);

type Statement = { Action: string | string[]; Resource: unknown; Condition?: unknown };
const fnProps = (name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;
const idOf = (type: string, prefix: string) => resourcesOfType(synth.json, type).find(([id]) => id.startsWith(prefix))![0];
const actions = (statement: Statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]).sort();

function statementsOf(name: string): Statement[] {
  const role = (fnProps(name).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
  return resourcesOfType(synth.json, "AWS::IAM::Policy")
    .filter(([, policy]) => (policy.Properties.Roles as Array<{ Ref: string }>).some((ref) => ref.Ref === role))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: [] }).Statement);
}

const idempotent = routes.filter((route) => route.idempotent).map((route) => route.name);

describe("Idempotency-Key records on AWS", () => {
  it("are kept for every POST that does work: sign, timestamp, annotate, annotate-fields, convert and the PDF tools", () => {
    expect(idempotent.sort()).toEqual([
      "annotate",
      "annotate-fields",
      "convert",
      "merge",
      "metadata",
      "pages",
      "protect",
      "sign",
      "split",
      "stamp",
      "timestamp",
      "unprotect",
    ]);
  });

  it("may be read and written by those functions in the key table, IDEM# items only", () => {
    const tableArn = { "Fn::GetAtt": [idOf("AWS::DynamoDB::Table", "KeyTable"), "Arn"] };
    for (const name of routes.map((route) => route.name)) {
      // Job records (JOB#) are checked in test/infra/jobs.test.ts.
      const records = statementsOf(name).filter(
        (statement) => actions(statement).includes("dynamodb:PutItem") && !JSON.stringify(statement.Condition ?? {}).includes("JOB#"),
      );
      if (!idempotent.includes(name)) {
        // Only the key functions put items, never into IDEM#.
        for (const statement of records) expect(JSON.stringify(statement.Condition ?? {}), name).not.toContain("IDEM#");
        continue;
      }
      expect(records, name).toEqual([
        {
          Effect: "Allow",
          Action: ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
          Resource: tableArn,
          Condition: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["IDEM#*"] } },
        },
      ]);
      expect((fnProps(name).Environment as { Variables: Record<string, unknown> }).Variables.SIGNET_TABLE, name).toEqual({
        Ref: idOf("AWS::DynamoDB::Table", "KeyTable"),
      });
    }
  });

  it("keep large answers under idempotency/ of the uploads bucket, which its one-day rule (no prefix) expires", () => {
    const bucket = idOf("AWS::S3::Bucket", "UploadsBucket");
    for (const name of routes.map((route) => route.name)) {
      const answers = statementsOf(name).filter((statement) => JSON.stringify(statement.Resource).includes('"/idempotency/*"'));
      expect(answers.length, name).toBe(idempotent.includes(name) ? 1 : 0);
      for (const statement of answers) {
        expect(actions(statement), name).toEqual(["s3:DeleteObject", "s3:GetObject", "s3:PutObject"]);
        expect(JSON.stringify(statement.Resource), name).toContain(`"${bucket}","Arn"`);
      }
      if (idempotent.includes(name)) {
        expect((fnProps(name).Environment as { Variables: Record<string, unknown> }).Variables.SIGNET_UPLOADS_BUCKET, name).toEqual({ Ref: bucket });
      }
    }
    const rules = (synth.json.Resources[bucket]!.Properties.LifecycleConfiguration as { Rules: Array<Record<string, unknown>> }).Rules;
    expect(rules.some((rule) => rule.ExpirationInDays === 1 && rule.Prefix === undefined && rule.Filter === undefined && rule.Status === "Enabled")).toBe(true);
  });
});
