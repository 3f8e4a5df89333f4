import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "#http/routes.ts";
import { LAMBDA_CONVERSION_TIMEOUT_MS, STREAMING_TIMEOUT_SECONDS as streamingTimeoutSeconds } from "#functions/timeouts.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { uploadFunctions } from "../../infra/uploads.ts";
import { apiPaths, resourcesOfType, synthesize, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

// Large documents on AWS. Uploads go to a private bucket that empties itself.
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, SYNTH_TIMEOUT_MS);

const uploadsBucketId = () => resourcesOfType(synth.json, "AWS::S3::Bucket").find(([id]) => id.startsWith("UploadsBucket"))![0];
const fnProps = (name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;

function statementsOf(name: string): Array<{ Action: string | string[]; Resource: unknown }> {
  const role = (fnProps(name).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
  return resourcesOfType(synth.json, "AWS::IAM::Policy")
    .filter(([, policy]) => (policy.Properties.Roles as Array<{ Ref: string }>).some((ref) => ref.Ref === role))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: [] }).Statement);
}

/** integrationOf finds the API Gateway method of a route and answers its Integration properties. */
function integrationOf(path: string, method: string): Record<string, unknown> {
  const paths = apiPaths(synth.json);
  const found = resourcesOfType(synth.json, "AWS::ApiGateway::Method").find(([, resource]) => {
    const ref = (resource.Properties.ResourceId as { Ref?: string }).Ref;
    return resource.Properties.HttpMethod === method && (ref ? paths.get(ref) : "/") === path;
  });
  return found![1].Properties.Integration as Record<string, unknown>;
}

describe("streamed answers", () => {
  it("streams sign, annotate, convert and the PDF tools (InvokeWithResponseStream), and only those", () => {
    expect(
      routes
        .filter((route) => route.streaming)
        .map((route) => route.name)
        .sort(),
    ).toEqual(["annotate", "convert", "merge", "metadata", "pages", "protect", "sign", "split", "stamp", "unprotect"]);
    for (const route of routes) {
      const integration = integrationOf(route.path, route.method);
      const uri = JSON.stringify(integration.Uri);
      if (route.streaming) {
        expect(integration.ResponseTransferMode, route.name).toBe("STREAM");
        expect(uri, route.name).toContain("/response-streaming-invocations");
        expect(integration.TimeoutInMillis, route.name).toBe(streamingTimeoutSeconds * 1000);
      } else {
        expect(integration.ResponseTransferMode ?? "BUFFERED", route.name).toBe("BUFFERED");
        expect(uri, route.name).toContain("/invocations");
        expect(uri, route.name).not.toContain("response-streaming");
      }
    }
  });

  it("gives the streamed functions time beyond the 29 s a buffered integration allows, inside the 5-minute idle cut", () => {
    for (const name of ["sign", "annotate", "convert", "stamp", "metadata", "merge", "split", "pages"]) {
      expect(fnProps(name).Timeout, name).toBe(streamingTimeoutSeconds);
    }
    // LibreOffice (in the office function) stops early enough for the caller to write the largest
    // planned answer in time (test/unit/stream-budget.test.ts), and the office function ends before its caller.
    expect(Number((fnProps("office").Environment as { Variables: Record<string, string> }).Variables.SIGNET_CONVERSION_TIMEOUT_MS)).toBe(
      LAMBDA_CONVERSION_TIMEOUT_MS,
    );
    expect(fnProps("office").Timeout as number).toBeLessThan(streamingTimeoutSeconds);
    expect(streamingTimeoutSeconds).toBeGreaterThan(29);
    expect(streamingTimeoutSeconds).toBeLessThan(300);
  });
});

describe("the gateway's own 413", () => {
  it("speaks the error layout and names the real limits and the way past them", () => {
    const [, response] = resourcesOfType(synth.json, "AWS::ApiGateway::GatewayResponse").find(([, r]) => r.Properties.ResponseType === "REQUEST_TOO_LARGE")!;
    expect(response.Properties.StatusCode).toBe("413");
    const body = JSON.parse((response.Properties.ResponseTemplates as Record<string, string>)["application/json"]!.replace("$context.requestId", "req-1")) as {
      code: string;
      message: string;
      requestId: string;
    };
    expect(body.code).toBe("PAYLOAD_TOO_LARGE");
    expect(body.message).toContain("10 MB");
    expect(body.message).toContain("6 MB");
    expect(body.message).toMatch(/about 3\.3 MB of document as base64 JSON, 4\.5 MB as a multipart file/);
    expect(body.message).toContain("POST /v1/uploads");
    expect(body.message).not.toMatch(/by URL/i);
  });
});

describe("uploads bucket", () => {
  it("is private, encrypted and TLS-only, and expires objects after one day", () => {
    const bucket = synth.json.Resources[uploadsBucketId()]!.Properties;
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.LifecycleConfiguration).toEqual({
      Rules: [
        { Id: "expire-uploads", Status: "Enabled", ExpirationInDays: 1, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
        // Job requests and results (test/infra/jobs.test.ts): gone a day after they were written.
        { Id: "expire-jobs", Status: "Enabled", Prefix: "jobs/", ExpirationInDays: 1 },
      ],
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
    for (const name of [...uploadFunctions.grant, ...uploadFunctions.consume, ...uploadFunctions.produce]) {
      expect((fnProps(name).Environment as { Variables: Record<string, unknown> }).Variables.SIGNET_UPLOADS_BUCKET, name).toEqual({ Ref: uploadsBucketId() });
      const onBucket = statementsOf(name).filter((statement) => JSON.stringify(statement.Resource).includes(`"${uploadsBucketId()}"`));
      expect(onBucket.length, name).toBeGreaterThan(0);
      for (const statement of onBucket) {
        const actions = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
        const resource = JSON.stringify(statement.Resource);
        // The bucket itself (ListBucket, merged by CDK with the identity bucket's where a function has both).
        if (actions.includes("s3:ListBucket")) expect(resource).toContain(`{"Fn::GetAtt":["${uploadsBucketId()}","Arn"]}`);
        // The office callers also stage documents for the office function under office/ (test/infra/office-stack.test.ts).
        else if (resource.includes('"/office/*"')) expect([...actions].sort(), name).toEqual(["s3:DeleteObject", "s3:GetObject", "s3:PutObject"]);
        // The idempotent routes keep large answers under idempotency/ (test/infra/idempotency.test.ts).
        else if (resource.includes('"/idempotency/*"')) expect([...actions].sort(), name).toEqual(["s3:DeleteObject", "s3:GetObject", "s3:PutObject"]);
        // The async routes keep job requests and results under jobs/ (test/infra/jobs.test.ts checks their actions).
        else if (resource.includes('"/jobs/*"'))
          expect(
            actions.every((action) => /^s3:(Get|Put|Delete)Object$/.test(String(action))),
            name,
          ).toBe(true);
        else expect(resource, name).toContain('"/uploads/*"');
      }
    }
    const granted = statementsOf("uploads").flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    // PutObject through the presigned POST, and the per-key request count (every authorised route).
    expect(granted).toEqual(["dynamodb:UpdateItem", "s3:PutObject"]);
  });

  it("lets only the granting function and split (its parts, output uploads) write under uploads/", () => {
    expect(uploadFunctions.produce).toEqual(["split"]);
    for (const name of [...uploadFunctions.grant, ...uploadFunctions.consume, ...uploadFunctions.produce]) {
      const writes = statementsOf(name).some((statement) => {
        const actions = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
        return actions.includes("s3:PutObject") && JSON.stringify(statement.Resource).includes('"/uploads/*"');
      });
      expect(writes, name).toBe(name === "uploads" || name === "split");
    }
  });
});
