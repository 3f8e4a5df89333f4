import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { uploadFunctions } from "../../infra/uploads.ts";
import { resourcesOfType, synthesize, type Synthesized } from "#test/helpers/infra-synth.ts";

// Issue 15: large documents on AWS. Uploads go to a private bucket that empties itself.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, 180_000);

const uploadsBucketId = () => resourcesOfType(synth.json, "AWS::S3::Bucket").find(([id]) => id.startsWith("UploadsBucket"))![0];
const fnProps = (name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;

function statementsOf(name: string): Array<{ Action: string | string[]; Resource: unknown }> {
  const role = (fnProps(name).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
  return resourcesOfType(synth.json, "AWS::IAM::Policy")
    .filter(([, policy]) => (policy.Properties.Roles as Array<{ Ref: string }>).some((ref) => ref.Ref === role))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: [] }).Statement);
}

describe("uploads bucket", () => {
  it("is private, encrypted and TLS-only, and expires objects after one day", () => {
    const bucket = synth.json.Resources[uploadsBucketId()]!.Properties;
    expect(bucket.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
    expect(bucket.LifecycleConfiguration).toEqual({
      Rules: [{ Id: "expire-uploads", Status: "Enabled", ExpirationInDays: 1, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }],
    });
    expect(bucket.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] });
    synth.template.hasResourceProperties("AWS::S3::BucketPolicy", {
      Bucket: { Ref: uploadsBucketId() },
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } })]) },
    });
  });

  it("lets browsers POST the presigned form from the API's CORS origin", () => {
    const bucket = synth.json.Resources[uploadsBucketId()]!.Properties;
    expect(bucket.CorsConfiguration).toEqual({ CorsRules: [{ AllowedHeaders: ["*"], AllowedMethods: ["POST"], AllowedOrigins: ["*"], MaxAge: 600 }] });
  });

  it("tells the granting and consuming functions the bucket, and scopes their calls to uploads/*", () => {
    for (const name of [...uploadFunctions.grant, ...uploadFunctions.consume]) {
      expect((fnProps(name).Environment as { Variables: Record<string, unknown> }).Variables.SIGNET_UPLOADS_BUCKET, name).toEqual({ Ref: uploadsBucketId() });
      const onBucket = statementsOf(name).filter((statement) => JSON.stringify(statement.Resource).includes(`"${uploadsBucketId()}"`));
      expect(onBucket.length, name).toBeGreaterThan(0);
      for (const statement of onBucket) {
        const actions = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
        const resource = JSON.stringify(statement.Resource);
        // The bucket itself (ListBucket, merged by CDK with the identity bucket's where a function has both).
        if (actions.includes("s3:ListBucket")) expect(resource).toContain(`{"Fn::GetAtt":["${uploadsBucketId()}","Arn"]}`);
        else expect(resource, name).toContain('"/uploads/*"');
      }
    }
    const granted = statementsOf("uploads").flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(granted).toEqual(["s3:PutObject"]);
  });
});
