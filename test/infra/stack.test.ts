import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { routes } from "#http/routes.ts";
import {
  KEY_FUNCTION_TIMEOUT_SECONDS,
  LAMBDA_CONVERSION_TIMEOUT_MS,
  OFFICE_FUNCTION_TIMEOUT_SECONDS,
  OFFICE_JOBS_FUNCTION_TIMEOUT_SECONDS,
} from "#functions/timeouts.ts";
import { identityObjects } from "../../infra/bind.ts";
import { repoRoot } from "../../infra/bundling.ts";
import { sofficeInImage } from "../../infra/base-image.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { functionPlans, officeCallers } from "../../infra/function-plans.ts";
import { apiPaths, resourcesOfType, synthesize, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

// The default deployment: LibreOffice functions as a container image. Synthesized once (esbuild
// bundles 11 zip functions and the image's 3 bundles, ~15 s).
let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, SYNTH_TIMEOUT_MS);

const version = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
const allNames = [...routes.map((route) => route.name), "authorizer", "fallback"];
const fnProps = (name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;
const env = (name: string) => (fnProps(name).Environment as { Variables: Record<string, unknown> }).Variables;

/** statementsOf collects the inline IAM statements attached to a function's role. */
function statementsOf(name: string): Array<{ Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown }> {
  const role = (fnProps(name).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
  return resourcesOfType(synth.json, "AWS::IAM::Policy")
    .filter(([, policy]) => (policy.Properties.Roles as Array<{ Ref: string }>).some((ref) => ref.Ref === role))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: [] }).Statement);
}
const actionsOf = (name: string) =>
  statementsOf(name)
    .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]))
    .sort();
const tableId = () => resourcesOfType(synth.json, "AWS::DynamoDB::Table")[0]![0];
const bucketId = () => resourcesOfType(synth.json, "AWS::S3::Bucket").find(([id]) => id.startsWith("IdentityBucket"))![0];

describe("functions", () => {
  it("creates one function per route plus the authorizer, the fallback, the two office functions, the CRL issuer and the webhook sweeper; the one other is CDK's VPC custom resource", () => {
    const ids = resourcesOfType(synth.json, "AWS::Lambda::Function").map(([id]) => id);
    const ours = [...allNames, "office", "office-jobs", "crl-issuer", "jobs-worker", "webhook-sweeper"].map(functionLogicalId);
    expect(ids.filter((id) => ours.includes(id)).sort()).toEqual(ours.sort());
    // (@aws-cdk/aws-ec2:restrictDefaultSecurityGroup: a custom resource empties the VPC's default
    // security group; AwsCustomResource looks up S3's prefix list for the office security group)
    expect(ids.filter((id) => !ours.includes(id)).sort()).toEqual([
      expect.stringMatching(/^AWS679f53fac002430cb0da5b7982bd2287/),
      expect.stringMatching(/^CustomVpcRestrictDefaultSG/),
    ]);
    // The table of deployment facts names exactly these functions (the compiler holds it to RouteName too).
    expect(Object.keys(functionPlans).sort()).toEqual([...allNames, "office", "office-jobs", "crl-issuer", "jobs-worker", "webhook-sweeper"].sort());
  });

  it("runs every route's function as a zip on nodejs22.x, and only the office function from the LibreOffice image", () => {
    for (const name of allNames) {
      const props = fnProps(name);
      expect(props.Runtime, name).toBe("nodejs22.x");
      expect(props.Handler, name).toBe("index.handler");
      expect(props.PackageType, name).toBeUndefined();
      expect(props.Layers, name).toBeUndefined();
      expect(env(name).HOME, name).toBeUndefined();
      expect(env(name).SIGNET_SOFFICE, name).toBeUndefined();
      // Every bundle ships a source map; Node reads it only when told to.
      expect(env(name).NODE_OPTIONS, name).toBe("--enable-source-maps");
      expect(props.Architectures).toEqual(["x86_64"]);
    }
    const office = fnProps("office");
    expect(office.PackageType).toBe("Image");
    expect(office.ImageConfig).toEqual({ Command: ["office.handler"] });
    expect(office.Architectures).toEqual(["x86_64"]);
    expect(env("office")).toEqual({
      HOME: "/tmp",
      NODE_OPTIONS: "--enable-source-maps",
      POWERTOOLS_SERVICE_NAME: "signet",
      SIGNET_VERSION: version,
      SIGNET_SOFFICE: sofficeInImage,
      SIGNET_CONVERSION_TIMEOUT_MS: String(LAMBDA_CONVERSION_TIMEOUT_MS),
      SIGNET_CONVERSION_CONCURRENCY: "1",
      SIGNET_LIBREOFFICE_RECYCLE: "true",
      SIGNET_LIBREOFFICE_PROFILE: "/opt/signet/libreoffice-profile",
    });
    // The converting functions send their conversions there; the job worker to the jobs' office function (test/infra/office-stack.test.ts).
    for (const name of officeCallers) {
      expect(env(name).SIGNET_OFFICE_FUNCTION, name).toEqual({ Ref: functionLogicalId(name === "jobs-worker" ? "office-jobs" : "office") });
    }
    // The job worker (not a route) converts too, running those routes' jobs.
    expect(allNames.filter((name) => env(name).SIGNET_OFFICE_FUNCTION !== undefined).sort()).toEqual(
      officeCallers.filter((name) => name !== "jobs-worker").sort(),
    );
  });

  it("sets SIGNET_VERSION, the names config.ts requires and the CORS origin (default *) in every function", () => {
    for (const name of allNames) {
      expect(env(name), name).toMatchObject({ SIGNET_VERSION: version, SIGNET_CORS_ORIGIN: "*" });
    }
    // config.ts reads a group on first use: the key table and the sender go only where they are used.
    const withTable = allNames.filter((name) => env(name).SIGNET_TABLE !== undefined).sort();
    const authorised = routes.filter((route) => route.auth).map((route) => route.name);
    // verify checks the key a job belongs to (it has no authorizer) and keeps its jobs there.
    expect(withTable).toEqual([...new Set([...authorised, "auth-register", "auth-verify", "authorizer", "keys-revoke-link", "verify"])].sort());
    for (const name of withTable) expect(env(name).SIGNET_TABLE, name).toEqual({ Ref: tableId() });
    expect(allNames.filter((name) => env(name).SIGNET_SENDER_EMAIL !== undefined).sort()).toEqual(["auth-register", "auth-verify"]);
    for (const name of ["auth-register", "auth-verify"]) expect(env(name).SIGNET_SENDER_EMAIL, name).toBe("noreply@example.com");
  });

  it("points sign and annotate at the fonts shipped beside their bundles", () => {
    expect(env("sign").SIGNET_FONTS_DIR).toBe("/var/task/assets/fonts");
    // annotate draws the text of SVG pictures with the same fonts.
    expect(env("annotate").SIGNET_FONTS_DIR).toBe("/var/task/assets/fonts");
    // stamp draws its text with them (issue 40).
    expect(env("stamp").SIGNET_FONTS_DIR).toBe("/var/task/assets/fonts");
  });

  it("sizes conversion functions large and auth functions small; buffered routes within the gateway's 29 s", () => {
    // The office callers are the streaming routes: 120 s, see test/infra/large-documents.test.ts; LibreOffice's memory is the office function's.
    for (const name of officeCallers.filter((name) => name !== "jobs-worker")) expect(fnProps(name)).toMatchObject({ MemorySize: 1536, Timeout: 120 });
    // The job worker: the streaming routes' size, Lambda's longest time-out (infra/jobs.ts).
    expect(fnProps("jobs-worker")).toMatchObject({ MemorySize: 1536, Timeout: 900 });
    expect(fnProps("office")).toMatchObject({ MemorySize: 3008, Timeout: OFFICE_FUNCTION_TIMEOUT_SECONDS, EphemeralStorage: { Size: 1024 } });
    expect(fnProps("office-jobs")).toMatchObject({ MemorySize: 3008, Timeout: OFFICE_JOBS_FUNCTION_TIMEOUT_SECONDS, EphemeralStorage: { Size: 1024 } });
    for (const name of ["authorizer", "auth-register", "auth-verify", "health"]) expect(fnProps(name).MemorySize as number, name).toBeLessThanOrEqual(256);
    const streamed = new Set<string>(routes.filter((route) => route.streaming).map((route) => route.name));
    for (const name of allNames.filter((n) => !streamed.has(n))) expect(fnProps(name).Timeout as number, name).toBeLessThanOrEqual(29);
  });

  it("gives the key functions time-outs above their AWS SDK retry budgets: register and verify 20 s, the authorizer 10 s", () => {
    // The figures and the budgets they must stay above live in functions/timeouts.ts (checked in
    // test/unit/keys-rules.test.ts); here: the stack deploys exactly those.
    for (const [name, seconds] of Object.entries(KEY_FUNCTION_TIMEOUT_SECONDS)) expect(fnProps(name).Timeout, name).toBe(seconds);
  });

  it("gives every function a log group with a retention", () => {
    for (const name of allNames) {
      const group = (fnProps(name).LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
      expect(synth.json.Resources[group]!.Properties.RetentionInDays, name).toBe(30);
    }
  });
});

describe("API", () => {
  it("is a Regional REST API passing every body through as binary", () => {
    synth.template.hasResourceProperties("AWS::ApiGateway::RestApi", {
      EndpointConfiguration: { Types: ["REGIONAL"] },
      BinaryMediaTypes: ["*/*"],
      MinimumCompressionSize: 1024,
    });
  });

  it("routes each catalogue entry to its function, behind the authorizer exactly when auth is set", () => {
    const paths = apiPaths(synth.json);
    const [authorizerId] = resourcesOfType(synth.json, "AWS::ApiGateway::Authorizer")[0]!;
    const methods = resourcesOfType(synth.json, "AWS::ApiGateway::Method").map(([, m]) => m.Properties);
    for (const route of routes) {
      const found = methods.filter((m) => {
        const resource = m.ResourceId as { Ref?: string };
        const path = resource.Ref ? paths.get(resource.Ref) : "/";
        return path === route.path && m.HttpMethod === route.method;
      });
      expect(found, `${route.method} ${route.path}`).toHaveLength(1);
      const method = found[0]!;
      expect(JSON.stringify(method.Integration), route.name).toContain(`"${functionLogicalId(route.name)}","Arn"`);
      expect((method.Integration as { Type: string }).Type).toBe("AWS_PROXY");
      if (route.auth) {
        expect(method.AuthorizationType, route.name).toBe("CUSTOM");
        expect(method.AuthorizerId, route.name).toEqual({ Ref: authorizerId });
      } else {
        expect(method.AuthorizationType, route.name).toBe("NONE");
      }
    }
  });

  it("answers HEAD on every GET route that changes nothing, with that route's function and authorization; never on register, verify or the revocation link", () => {
    const paths = apiPaths(synth.json);
    const methods = resourcesOfType(synth.json, "AWS::ApiGateway::Method").map(([, m]) => m.Properties);
    const on = (path: string, verb: string) =>
      methods.filter((m) => {
        const resource = m.ResourceId as { Ref?: string };
        return (resource.Ref ? paths.get(resource.Ref) : "/") === path && m.HttpMethod === verb;
      });
    for (const route of routes) {
      const head = on(route.path, "HEAD");
      // A GET that sends mail, mints a key or revokes one: HEAD falls to the fallback's 405
      // (API Gateway would run the GET and drop the body: a key minted for nobody).
      if (route.method !== "GET" || route.changesState) {
        expect(head, route.path).toEqual([]);
        continue;
      }
      expect(head, `HEAD ${route.path}`).toHaveLength(1);
      const get = on(route.path, "GET")[0]!;
      expect(head[0]!.Integration, route.name).toEqual(get.Integration);
      expect(head[0]!.AuthorizationType, route.name).toBe(get.AuthorizationType);
    }
    expect(
      routes
        .filter((route) => route.changesState)
        .map((route) => route.name)
        .sort(),
    ).toEqual(["auth-register", "auth-verify", "keys-revoke-link"]);
  });

  it("answers unknown paths and wrong methods through the fallback (ANY on every resource and /{proxy+})", () => {
    const paths = apiPaths(synth.json);
    const anyMethods = resourcesOfType(synth.json, "AWS::ApiGateway::Method")
      .map(([, m]) => m.Properties)
      .filter((m) => m.HttpMethod === "ANY");
    const covered = anyMethods.map((m) => ((m.ResourceId as { Ref?: string }).Ref ? paths.get((m.ResourceId as { Ref: string }).Ref) : "/"));
    expect(covered.sort()).toEqual(["/", ...paths.values()].sort());
    expect(covered).toContain("/{proxy+}");
    for (const method of anyMethods) {
      expect(JSON.stringify(method.Integration)).toContain('"FallbackFunction","Arn"');
      expect(method.AuthorizationType).toBe("NONE");
    }
  });

  it("uses a TOKEN authorizer on the Authorization header, cached 60 s (the bound on a revoked key still working)", () => {
    synth.template.resourceCountIs("AWS::ApiGateway::Authorizer", 1);
    synth.template.hasResourceProperties("AWS::ApiGateway::Authorizer", {
      Type: "TOKEN",
      IdentitySource: "method.request.header.Authorization",
      AuthorizerResultTtlInSeconds: 60,
      IdentityValidationExpression: "^Bearer sgn_[0-9A-Za-z]{38}$",
    });
    const authorizer = resourcesOfType(synth.json, "AWS::ApiGateway::Authorizer")[0]![1];
    expect(JSON.stringify(authorizer.Properties.AuthorizerUri)).toContain('"AuthorizerFunction","Arn"');
  });

  it("throttles the stage, tightens register, and writes JSON access logs", () => {
    synth.template.hasResourceProperties("AWS::ApiGateway::Stage", {
      StageName: "prod",
      MethodSettings: Match.arrayWith([
        Match.objectLike({ HttpMethod: "*", ResourcePath: "/*", ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 }),
        Match.objectLike({ HttpMethod: "GET", ResourcePath: "/~1v1~1auth~1register", ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 }),
      ]),
      AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('"requestId":"\\$context.requestId"') },
    });
  });

  it("gives register's tighter limit to every method on its resource, not only GET", () => {
    const paths = apiPaths(synth.json);
    const onRegister = resourcesOfType(synth.json, "AWS::ApiGateway::Method")
      .map(([, m]) => m.Properties)
      .filter((m) => paths.get((m.ResourceId as { Ref: string }).Ref) === "/v1/auth/register")
      .map((m) => m.HttpMethod as string)
      .sort();
    expect(onRegister).toEqual(["ANY", "GET"]);
    const stage = resourcesOfType(synth.json, "AWS::ApiGateway::Stage")[0]![1];
    const settings = (stage.Properties.MethodSettings as Array<Record<string, unknown>>).filter((m) => m.ResourcePath === "/~1v1~1auth~1register");
    expect(settings.map((m) => m.HttpMethod).sort()).toEqual(onRegister);
    for (const setting of settings) expect(setting, String(setting.HttpMethod)).toMatchObject({ ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 });
  });

  it("leaves CORS preflight to the fallback function: no MOCK OPTIONS methods, an unauthorized ANY on every route's path", () => {
    // MOCK OPTIONS integrations (defaultCorsPreflightOptions) have no contentHandling; with
    // binaryMediaTypes */* API Gateway answers them 500 "Unable to transform request".
    const methods = resourcesOfType(synth.json, "AWS::ApiGateway::Method").map(([, m]) => m.Properties);
    expect(methods.filter((m) => m.HttpMethod === "OPTIONS")).toEqual([]);
    expect(methods.filter((m) => (m.Integration as { Type?: string } | undefined)?.Type === "MOCK")).toEqual([]);
    const paths = apiPaths(synth.json);
    const pathOf = (m: Record<string, unknown>) => ((m.ResourceId as { Ref?: string }).Ref ? paths.get((m.ResourceId as { Ref: string }).Ref) : "/");
    for (const route of routes) {
      const any = methods.filter((m) => m.HttpMethod === "ANY" && pathOf(m) === route.path);
      expect(any, route.path).toHaveLength(1);
      // Browsers send preflights without Authorization: an authorizer here would answer them 401.
      expect(any[0]!.AuthorizationType, route.path).toBe("NONE");
      expect(any[0]!.AuthorizerId, route.path).toBeUndefined();
      expect(JSON.stringify(any[0]!.Integration), route.path).toContain('"FallbackFunction","Arn"');
    }
  });

  it("speaks the error layout in every gateway response", () => {
    const expected: Record<string, [string, string]> = {
      UNAUTHORIZED: ["401", "AUTHENTICATION_ERROR"],
      ACCESS_DENIED: ["401", "AUTHENTICATION_ERROR"],
      AUTHORIZER_FAILURE: ["503", "SERVICE_UNAVAILABLE"],
      AUTHORIZER_CONFIGURATION_ERROR: ["503", "SERVICE_UNAVAILABLE"],
      THROTTLED: ["429", "RATE_LIMIT_ERROR"],
      // A throttled Lambda (concurrency used up) or a failed invoke: 503 to retry, not a bare 500.
      INTEGRATION_FAILURE: ["503", "SERVICE_UNAVAILABLE"],
      REQUEST_TOO_LARGE: ["413", "PAYLOAD_TOO_LARGE"],
      INTEGRATION_TIMEOUT: ["504", "CONVERSION_TIMEOUT"],
      BAD_REQUEST_PARAMETERS: ["400", "VALIDATION_ERROR"],
      BAD_REQUEST_BODY: ["400", "VALIDATION_ERROR"],
      QUOTA_EXCEEDED: ["429", "RATE_LIMIT_ERROR"],
      WAF_FILTERED: ["403", "REQUEST_REJECTED"],
      INVALID_API_KEY: ["403", "REQUEST_REJECTED"],
      EXPIRED_TOKEN: ["403", "REQUEST_REJECTED"],
      INVALID_SIGNATURE: ["403", "REQUEST_REJECTED"],
      // No status: the gateway keeps its own (a 403 stays a 403), and it is no validation error.
      DEFAULT_4XX: ["", "REQUEST_REJECTED"],
      DEFAULT_5XX: ["500", "INTERNAL_ERROR"],
    };
    const responses = new Map(
      resourcesOfType(synth.json, "AWS::ApiGateway::GatewayResponse").map(([, r]) => [r.Properties.ResponseType as string, r.Properties]),
    );
    for (const [type, [status, code]] of Object.entries(expected)) {
      const response = responses.get(type);
      expect(response, type).toBeDefined();
      expect(response!.StatusCode, type).toBe(status || undefined);
      // Render the template the way the gateway would, with sample context values.
      const rendered = (response!.ResponseTemplates as Record<string, string>)
        ["application/json"]!.replace("$context.requestId", "req-1")
        .replace("$context.authorizer.message", "The API key is not valid.")
        .replace("$context.error.messageString", '"Bad thing"');
      const body = JSON.parse(rendered) as Record<string, string>;
      expect(Object.keys(body).sort(), type).toEqual(["code", "error", "message", "requestId"]);
      expect(body, type).toMatchObject({ code, requestId: "req-1" });
      expect(body.message!.length, type).toBeGreaterThan(5);
      expect((response!.ResponseParameters as Record<string, string>)["gatewayresponse.header.Access-Control-Allow-Origin"]).toBe("'*'");
    }
    expect(responses.get("THROTTLED")!.ResponseParameters).toMatchObject({ "gatewayresponse.header.Retry-After": "'1'" });
    expect(responses.get("INTEGRATION_FAILURE")!.ResponseParameters).toMatchObject({ "gatewayresponse.header.Retry-After": "'2'" });
    const errorOf = (type: string) =>
      (
        JSON.parse((responses.get(type)!.ResponseTemplates as Record<string, string>)["application/json"]!.replace("$context.error.messageString", '"x"')) as {
          error: string;
        }
      ).error;
    expect(errorOf("WAF_FILTERED")).toBe("Forbidden");
    expect(errorOf("DEFAULT_4XX")).toBe("Client Error");
    // Every 4xx the gateway makes on its own has a row of its own; DEFAULT_4XX is only a backstop.
    const gateway4xx = [
      "ACCESS_DENIED",
      "BAD_REQUEST_BODY",
      "BAD_REQUEST_PARAMETERS",
      "EXPIRED_TOKEN",
      "INVALID_API_KEY",
      "INVALID_SIGNATURE",
      "MISSING_AUTHENTICATION_TOKEN",
      "QUOTA_EXCEEDED",
      "REQUEST_TOO_LARGE",
      "RESOURCE_NOT_FOUND",
      "THROTTLED",
      "UNAUTHORIZED",
      "UNSUPPORTED_MEDIA_TYPE",
      "WAF_FILTERED",
    ];
    for (const type of gateway4xx) expect(responses.has(type), type).toBe(true);
    expect((responses.get("ACCESS_DENIED")!.ResponseTemplates as Record<string, string>)["application/json"]).toContain("$context.authorizer.message");
  });
});

describe("data", () => {
  it("retains the data on update and delete but not after a failed first create (RetainExceptOnCreate), and nothing else but API Gateway's shared role", () => {
    const kept = Object.entries(synth.json.Resources)
      .filter(([, resource]) => resource.DeletionPolicy !== undefined && resource.DeletionPolicy !== "Delete")
      .map(([id, resource]) => `${resource.Type} ${id.replace(/[0-9A-F]{8}$/, "")} ${resource.DeletionPolicy}/${resource.UpdateReplacePolicy}`)
      .sort();
    expect(kept).toEqual([
      "AWS::ApiGateway::Account ApiAccount Retain/Retain",
      "AWS::DynamoDB::Table KeyTable RetainExceptOnCreate/Retain",
      "AWS::IAM::Role ApiCloudWatchRole Retain/Retain",
      "AWS::KMS::Key SigningKeysRootKey RetainExceptOnCreate/Retain",
      "AWS::KMS::Key SigningKeysSigningKey RetainExceptOnCreate/Retain",
      "AWS::S3::Bucket IdentityAccessLogs RetainExceptOnCreate/Retain",
      "AWS::S3::Bucket IdentityBucket RetainExceptOnCreate/Retain",
      "AWS::S3::Bucket UploadsBucket RetainExceptOnCreate/Retain",
    ]);
  });

  it("keeps keys in an on-demand table with the key store's schema, TTL, PITR, retained", () => {
    synth.template.resourceCountIs("AWS::DynamoDB::Table", 1);
    synth.template.hasResource("AWS::DynamoDB::Table", {
      DeletionPolicy: "RetainExceptOnCreate",
      UpdateReplacePolicy: "Retain",
      Properties: {
        KeySchema: [
          { AttributeName: "pk", KeyType: "HASH" },
          { AttributeName: "sk", KeyType: "RANGE" },
        ],
        AttributeDefinitions: [
          { AttributeName: "pk", AttributeType: "S" },
          { AttributeName: "sk", AttributeType: "S" },
        ],
        BillingMode: "PAY_PER_REQUEST",
        TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      },
    });
  });

  it("keeps the signing identity in a private, encrypted, versioned, TLS-only, retained bucket", () => {
    synth.template.hasResource("AWS::S3::Bucket", {
      DeletionPolicy: "RetainExceptOnCreate",
      UpdateReplacePolicy: "Retain",
      Properties: {
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        VersioningConfiguration: { Status: "Enabled" },
        LoggingConfiguration: { DestinationBucketName: { Ref: Match.stringLikeRegexp("^IdentityAccessLogs") }, LogFilePrefix: "identity-bucket/" },
      },
    });
    // The access logs: private, encrypted, TLS only, a year, retained.
    synth.template.hasResource("AWS::S3::Bucket", {
      DeletionPolicy: "RetainExceptOnCreate",
      Properties: Match.objectLike({
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        LifecycleConfiguration: { Rules: [Match.objectLike({ ExpirationInDays: 365, Status: "Enabled" })] },
      }),
    });
    synth.template.hasResourceProperties("AWS::S3::BucketPolicy", {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } })]),
      },
    });
  });

  it("declares the SES sender identity, and names its configuration set on every send too", () => {
    synth.template.hasResourceProperties("AWS::SES::EmailIdentity", { EmailIdentity: "noreply@example.com" });
    const [setId] = resourcesOfType(synth.json, "AWS::SES::ConfigurationSet")[0]!;
    for (const name of ["auth-register", "auth-verify"]) expect(env(name).SIGNET_SES_CONFIGURATION_SET, name).toEqual({ Ref: setId });
  });
});

describe("least privilege", () => {
  const table = ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:Query", "dynamodb:UpdateItem"];
  // Uploads (infra/uploads.ts): read and delete by the functions taking document.upload.
  const consume = ["s3:DeleteObject", "s3:GetObject", "s3:ListBucket"];
  // The office callers: invoke the office function, stage documents under office/.
  const office = ["lambda:InvokeFunction", "s3:DeleteObject", "s3:GetObject", "s3:PutObject"];
  // Idempotency-Key records: the key table's IDEM# items, large answers under idempotency/ (test/infra/idempotency.test.ts).
  const idempotency = ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "s3:DeleteObject", "s3:GetObject", "s3:PutObject"];
  // For the office callers CDK merges the idempotency/ statement into the office/ one (the same three S3 actions).
  const idempotencyBesideOffice = idempotency.filter((action) => action.startsWith("dynamodb:"));
  // Job records (JOB# items) and the queue; their jobs/ objects merge into a statement with the same actions where there is one.
  const jobRecords = ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"];
  const jobObjects = ["s3:DeleteObject", "s3:GetObject", "s3:PutObject"];
  const submitsJobs = [...jobRecords, "sqs:SendMessage"];
  const expected: Record<string, string[]> = {
    // SendEmail twice: on the sender identity and its configuration set (one statement, two
    // resources), and (SES sandbox, the default) on any verified recipient identity, From the
    // sender address only.
    "auth-register": [...table, "ses:SendEmail", "ses:SendEmail"].sort(),
    "auth-verify": [...table, "ses:SendEmail", "ses:SendEmail"].sort(),
    authorizer: ["dynamodb:GetItem", "dynamodb:UpdateItem"],
    "keys-list": ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem"],
    "keys-revoke": ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:UpdateItem"],
    "keys-revoke-link": ["dynamodb:DeleteItem", "dynamodb:GetItem", "dynamodb:UpdateItem"],
    // The webhook secret beside the key: read, made or rotated by a conditional put.
    "webhooks-secret": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
    "webhooks-secret-rotate": ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
    // sign: its identity, the per-key count, and consuming uploads (CDK merges the two buckets'
    // ListBucket into one statement).
    // ... and the two KMS keys (test/infra/signing-keys.test.ts).
    sign: [
      ...["dynamodb:UpdateItem", "kms:GetPublicKey", "kms:Sign", "s3:DeleteObject", "s3:GetObject", "s3:GetObject", "s3:ListBucket", "s3:PutObject"],
      ...office,
      ...idempotencyBesideOffice,
      ...submitsJobs,
    ].sort(),
    // verify: the published chain, and consuming uploads (verify has no key to count).
    // ... and, for jobs, checking the key (GetItem, UpdateItem), job records and objects, the queue.
    verify: [
      "s3:DeleteObject",
      "s3:GetObject",
      "s3:GetObject",
      "s3:ListBucket",
      "dynamodb:GetItem",
      "dynamodb:UpdateItem",
      ...submitsJobs,
      ...jobObjects,
    ].sort(),
    "verify-key": ["s3:GetObject", "s3:ListBucket"],
    // verify-crl: the published chain and the kept CRL; no KMS call (infra/crl-issuer.ts signs it).
    "verify-crl": ["s3:GetObject", "s3:ListBucket"],
    annotate: [...consume, ...office, ...idempotencyBesideOffice, ...submitsJobs, "dynamodb:UpdateItem"].sort(),
    // timestamp: no identity (it adds no signature), the per-key count, consuming uploads.
    timestamp: [...consume, ...idempotency, ...submitsJobs, "dynamodb:UpdateItem"].sort(),
    "annotate-fields": [...consume, ...idempotency, "dynamodb:UpdateItem"].sort(),
    // protect and unprotect: the per-key count, consuming uploads and Idempotency-Key records; no identity, no office, no jobs.
    protect: [...consume, ...idempotency, "dynamodb:UpdateItem"].sort(),
    unprotect: [...consume, ...idempotency, "dynamodb:UpdateItem"].sort(),
    // The PDF tools (issue 40): the per-key count, consuming uploads, Idempotency-Key records; no identity, no office.
    stamp: [...consume, ...idempotency, "dynamodb:UpdateItem"].sort(),
    metadata: [...consume, ...idempotency, "dynamodb:UpdateItem"].sort(),
    convert: [...consume, ...office, ...idempotencyBesideOffice, ...submitsJobs, "dynamodb:UpdateItem"].sort(),
    // The PDF tools: like convert (uploads consumed, a DOCX input through the office function), no jobs.
    merge: [...consume, ...office, ...idempotencyBesideOffice, "dynamodb:UpdateItem"].sort(),
    // split also writes uploads (its parts, output "uploads"): its uploads/ statement has the office/ one's three actions, and CDK merges them.
    split: ["s3:ListBucket", ...office, ...idempotencyBesideOffice, "dynamodb:UpdateItem"].sort(),
    pages: [...consume, ...office, ...idempotencyBesideOffice, "dynamodb:UpdateItem"].sort(),
    // The job routes: the per-key count, job records and objects (result GETs are presigned).
    job: ["dynamodb:UpdateItem", ...jobRecords, ...jobObjects].sort(),
    "job-redeliver": ["dynamodb:UpdateItem", ...jobRecords, ...jobObjects].sort(),
    uploads: ["dynamodb:UpdateItem", "s3:PutObject"],
  };

  it("grants each function exactly the calls its adapters make", () => {
    // Image functions get no ECR rights of their own: Lambda fetches the image itself.
    for (const name of allNames) expect(actionsOf(name), name).toEqual(expected[name] ?? []);
  });

  it("names the same identity objects as the S3 identity store", async () => {
    const { identityKeys } = await import("#adapters/s3-identity-store.ts");
    const { crlFileName } = await import("#domain/signing/crl-keeper.ts");
    expect([...identityObjects.signing.read].sort()).toEqual([identityKeys.p12, identityKeys.pem, identityKeys.chain, crlFileName].sort());
    expect([...identityObjects.signing.write].sort()).toEqual([identityKeys.pem, identityKeys.chain, crlFileName].sort());
    expect(identityObjects.certificate.read).toEqual([identityKeys.chain, crlFileName]);
    expect(identityObjects.crlIssuer).toEqual({ read: [identityKeys.chain, crlFileName], write: [crlFileName] });
  });

  it("scopes every statement to the table, the bucket or the sender identity; * only where AWS requires it", () => {
    for (const name of allNames) {
      for (const statement of statementsOf(name)) {
        const actions = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
        const resources = JSON.stringify(statement.Resource);
        if (resources === '"*"') {
          // ecr:GetAuthorizationToken has no resource-level permissions.
          expect(actions, name).toEqual(["ecr:GetAuthorizationToken"]);
          continue;
        }
        // The uploads bucket's statements are checked in test/infra/large-documents.test.ts.
        if (resources.includes('"UploadsBucket')) continue;
        // Invoking: the office function and its versions, nothing else (checked in test/infra/office-worker.test.ts).
        if (actions.includes("lambda:InvokeFunction")) {
          expect(actions, name).toEqual(["lambda:InvokeFunction"]);
          expect(resources, name).toContain('"OfficeFunction","Arn"');
          continue;
        }
        if (actions.some((a) => a.startsWith("dynamodb:"))) expect(statement.Resource, name).toEqual({ "Fn::GetAtt": [tableId(), "Arn"] });
        if (actions.includes("s3:ListBucket")) expect(resources, name).toContain(`{"Fn::GetAtt":["${bucketId()}","Arn"]}`);
        if (actions.includes("s3:GetObject") || actions.includes("s3:PutObject")) {
          expect(resources, name).toContain(`"${bucketId()}","Arn"`);
          const keys = [...resources.matchAll(/"\/(identity[a-z-]*\.[a-z0-9]+)"/g)].map((m) => m[1]).sort();
          const expectedKeys =
            name === "sign"
              ? actions.includes("s3:PutObject")
                ? ["identity-chain.pem", "identity-root.crl", "identity.pem"]
                : ["identity-chain.pem", "identity-root.crl", "identity.p12", "identity.pem"]
              : ["identity-chain.pem", "identity-root.crl"];
          expect(keys, name).toEqual(expectedKeys);
        }
        if (actions.includes("ses:SendEmail")) {
          if (resources.includes(":identity/*")) {
            expect(statement.Condition, name).toEqual({ StringEquals: { "ses:FromAddress": "noreply@example.com" } });
          } else {
            expect(resources, name).toMatch(/:identity\/",\{"Ref":"SenderIdentity[0-9A-F]+"\}|:configuration-set\/",\{"Ref":"MailConfiguration[0-9A-F]+"\}/);
          }
        }
        expect(resources, name).not.toMatch(/"\*"|:\*"/);
      }
    }
  });
});

describe("the private key", () => {
  // Every statement of a role that could reach an object key: s3:GetObject / s3:PutObject / s3:*
  // (or *) on a resource ARN that matches it, wildcards included.
  function canReach(name: string, verb: "s3:GetObject" | "s3:PutObject", key: string): boolean {
    return statementsOf(name).some((statement) => {
      if (statement.Effect !== "Allow") return false;
      const actions = Array.isArray(statement.Action) ? statement.Action : [statement.Action];
      if (!actions.some((action) => action === verb || action === "s3:*" || action === "*" || (action.endsWith("*") && verb.startsWith(action.slice(0, -1)))))
        return false;
      const resources = Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
      return resources.some((resource) => {
        const text = JSON.stringify(resource);
        if (text === '"*"') return true;
        const suffix = /"\/([^"]*)"\]\]\}$/.exec(text)?.[1];
        if (suffix === undefined) return false;
        const pattern = new RegExp(`^${suffix.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*")}$`);
        return pattern.test(key);
      });
    });
  }

  it("lets only sign read identity.p12 / identity.pem or write them", () => {
    for (const name of [...allNames, "crl-issuer", "webhook-sweeper"]) {
      for (const key of ["identity.p12", "identity.pem"]) {
        expect(canReach(name, "s3:GetObject", key), `${name} reads ${key}`).toBe(name === "sign");
        expect(canReach(name, "s3:PutObject", key), `${name} writes ${key}`).toBe(name === "sign" && key === "identity.pem");
      }
    }
  });

  it("lets verify, verify-key and verify-crl read the published chain and the kept CRL, and write nothing", () => {
    for (const name of ["verify", "verify-key", "verify-crl"]) {
      for (const object of ["identity-chain.pem", "identity-root.crl"]) {
        expect(canReach(name, "s3:GetObject", object), name).toBe(true);
        expect(canReach(name, "s3:PutObject", object), name).toBe(false);
      }
    }
    expect(canReach("crl-issuer", "s3:PutObject", "identity-root.crl")).toBe(true);
    expect(canReach("crl-issuer", "s3:PutObject", "identity-chain.pem")).toBe(false);
    expect(canReach("crl-issuer", "s3:GetObject", "identity.pem")).toBe(false);
    expect(canReach("sign", "s3:PutObject", "identity-chain.pem")).toBe(true);
  });
});

describe("operations", () => {
  it("creates no alarms and no topic without alarmEmail: alarms that notify nobody only cost", () => {
    synth.template.resourceCountIs("AWS::CloudWatch::Alarm", 0);
    synth.template.resourceCountIs("AWS::SNS::Topic", 0);
  });

  it("outputs the API URL, the table name, the bucket names and the office function's name (docs/aws.md, SAM)", () => {
    expect(Object.keys(synth.json.Outputs).sort()).toEqual([
      "ApiUrl",
      "IdentityBucketName",
      "OfficeFunctionName",
      "SigningKeyArn",
      "TableName",
      "UploadsBucketName",
    ]);
    synth.template.hasOutput("OfficeFunctionName", { Value: { Ref: functionLogicalId("office") } });
    synth.template.hasOutput("TableName", { Value: { Ref: tableId() } });
    synth.template.hasOutput("IdentityBucketName", { Value: { Ref: bucketId() } });
  });

  it("passes the per-key rate limit and the registration allow-list only when given", async () => {
    for (const name of routes.filter((route) => route.auth).map((route) => route.name)) expect(env(name).SIGNET_KEY_RATE_LIMIT, name).toBeUndefined();
    expect(env("auth-register").SIGNET_REGISTER_ALLOW).toBeUndefined();
    const { App } = await import("aws-cdk-lib");
    const { stackPropsFromContext } = await import("../../infra/app.ts");
    const props = stackPropsFromContext(
      new App({ context: { senderEmail: "noreply@example.com", keyRatePerMinute: "30", registerAllow: "me@example.com,example.org" } }),
    );
    expect(props).toMatchObject({ keyRatePerMinute: 30, registerAllow: "me@example.com,example.org" });
    expect(() => stackPropsFromContext(new App({ context: { senderEmail: "noreply@example.com", keyRatePerMinute: "none" } }))).toThrow(/keyRatePerMinute/);
  });

  it("refuses to synthesize without a sender address, saying how to give one", () => {
    expect(() => synthesize({})).toThrow(/senderEmail.*-c senderEmail=/s);
    expect(() => synthesize({ senderEmail: "not-an-address" })).toThrow(/not an e-mail address/);
  });
});
