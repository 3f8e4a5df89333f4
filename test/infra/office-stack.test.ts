// The office functions in the whole stack: LibreOffice runs only there (the routes' and the jobs'
// one, from one image), with no route to the internet and a role without any data permission; sign,
// annotate and convert carry no LibreOffice (no image, no layer) and reach the routes' one by
// invoking, the job worker the jobs' one, while sign keeps its key rights.
import { beforeAll, describe, expect, it } from "vitest";
import { officeCallers, planOf } from "../../infra/function-plans.ts";
import { eniActions } from "../../infra/office-worker.ts";
import { OFFICE_KEY_PREFIX } from "#adapters/office-worker-converter.ts";
import { JOB_WORKER_TIMEOUT_SECONDS, OFFICE_FUNCTION_TIMEOUT_SECONDS, OFFICE_JOBS_FUNCTION_TIMEOUT_SECONDS } from "#functions/timeouts.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { resourcesOfType, synthesize, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, SYNTH_TIMEOUT_MS);

type Statement = { Action: string | string[]; Resource: unknown; Effect: string; Condition?: unknown };
const fnProps = (name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;
const roleIdOf = (name: string) => (fnProps(name).Role as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
const actionsOf = (statement: Statement) => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

/** statementsOf collects every inline and attached-policy statement naming a role. */
function statementsOf(roleId: string): Statement[] {
  return [...resourcesOfType(synth.json, "AWS::IAM::Policy"), ...resourcesOfType(synth.json, "AWS::IAM::ManagedPolicy")]
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles ?? []).includes(`"${roleId}"`))
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

describe("the office function has no route to the internet", () => {
  it("runs in the isolated subnets of its own VPC, behind a security group that only sends HTTPS", () => {
    const vpcConfig = fnProps("office").VpcConfig as { SubnetIds: Array<{ Ref: string }>; SecurityGroupIds: Array<{ "Fn::GetAtt": [string, string] }> };
    expect(vpcConfig.SubnetIds).toHaveLength(2);
    for (const { Ref } of vpcConfig.SubnetIds) {
      const subnet = synth.json.Resources[Ref]!;
      expect(subnet.Type).toBe("AWS::EC2::Subnet");
      expect(subnet.Properties.MapPublicIpOnLaunch).toBe(false);
    }
    const [groupId] = vpcConfig.SecurityGroupIds[0]!["Fn::GetAtt"];
    // Inline and alone: a group without inline egress rules gets EC2's default "all traffic anywhere".
    const egress = synth.json.Resources[groupId]!.Properties.SecurityGroupEgress as Array<Record<string, unknown>>;
    expect(egress).toEqual([
      {
        IpProtocol: "tcp",
        FromPort: 443,
        ToPort: 443,
        DestinationPrefixListId: { "Fn::GetAtt": [expect.stringMatching(/^OfficeS3PrefixList/), "PrefixLists.0.PrefixListId"] },
        Description: expect.any(String),
      },
    ]);
    expect(resourcesOfType(synth.json, "AWS::EC2::SecurityGroupEgress")).toEqual([]);
    // The prefix list is the region's S3 list (com.amazonaws.<region>.s3), looked up at deploy.
    const lookupId = (egress[0]!.DestinationPrefixListId as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    const lookup = JSON.stringify(synth.json.Resources[lookupId]!.Properties.Create);
    expect(lookup).toContain('\\"action\\":\\"describeManagedPrefixLists\\"');
    expect(lookup).toContain('\\"Values\\":[\\"com.amazonaws.');
    expect(lookup).toContain('.s3\\"]');
    // No other function of the stack is in a VPC: only the office functions are boxed (and need to be), in the same box.
    const inVpc = resourcesOfType(synth.json, "AWS::Lambda::Function").filter(([, fn]) => fn.Properties.VpcConfig !== undefined);
    expect(inVpc.map(([id]) => id).sort()).toEqual([functionLogicalId("office"), functionLogicalId("office-jobs")].sort());
    expect(fnProps("office-jobs").VpcConfig).toEqual(vpcConfig);
  });

  it("has no NAT or internet gateway, no default route, and one way out: the S3 gateway endpoint", () => {
    for (const type of [
      "AWS::EC2::NatGateway",
      "AWS::EC2::InternetGateway",
      "AWS::EC2::VPCGatewayAttachment",
      "AWS::EC2::EgressOnlyInternetGateway",
      "AWS::EC2::EIP",
    ]) {
      expect(resourcesOfType(synth.json, type), type).toEqual([]);
    }
    for (const [id, route] of resourcesOfType(synth.json, "AWS::EC2::Route")) {
      expect(route.Properties.DestinationCidrBlock, id).toBeUndefined();
      expect(route.Properties.DestinationIpv6CidrBlock, id).toBeUndefined();
    }
    const endpoints = resourcesOfType(synth.json, "AWS::EC2::VPCEndpoint");
    expect(endpoints).toHaveLength(1);
    expect(endpoints[0]![1].Properties.VpcEndpointType).toBe("Gateway");
    expect(JSON.stringify(endpoints[0]![1].Properties.ServiceName)).toContain(".s3");
  });

  it("lets through the S3 endpoint only GET and PUT of the uploads bucket's office/ objects (AWS's default policy is full access)", () => {
    const [, endpoint] = resourcesOfType(synth.json, "AWS::EC2::VPCEndpoint")[0]!;
    const uploadsBucket = resourcesOfType(synth.json, "AWS::S3::Bucket").find(([id]) => id.startsWith("UploadsBucket"))![0];
    expect(endpoint.Properties.PolicyDocument).toEqual({
      Version: "2012-10-17",
      Statement: [
        {
          Effect: "Allow",
          Principal: { AWS: "*" },
          Action: ["s3:GetObject", "s3:PutObject"],
          Resource: { "Fn::Join": ["", [{ "Fn::GetAtt": [uploadsBucket, "Arn"] }, "/office/*"]] },
        },
      ],
    });
    // The prefix the office callers stage under (functions/adapters/office-worker-converter.ts).
    expect(`${OFFICE_KEY_PREFIX}*`).toBe("office/*");
  });

  it("answers only S3's regional names in the VPC (NXDOMAIN for the rest) and logs every query a week", () => {
    const vpcId = resourcesOfType(synth.json, "AWS::EC2::VPC")[0]![0];
    const lists = Object.fromEntries(
      resourcesOfType(synth.json, "AWS::Route53Resolver::FirewallDomainList").map(([id, list]) => [id, list.Properties.Domains]),
    );
    const regional = (prefix: string) => ({ "Fn::Join": ["", [prefix, { Ref: "AWS::Region" }, ".", { Ref: "AWS::URLSuffix" }]] });
    const [groups, associations] = [
      resourcesOfType(synth.json, "AWS::Route53Resolver::FirewallRuleGroup"),
      resourcesOfType(synth.json, "AWS::Route53Resolver::FirewallRuleGroupAssociation"),
    ];
    expect(groups).toHaveLength(1);
    type Rule = { Action: string; Priority: number; BlockResponse?: string; FirewallDomainListId: { "Fn::GetAtt": [string, string] } };
    const rules = (groups[0]![1].Properties.FirewallRules as Rule[]).sort((a, b) => a.Priority - b.Priority);
    expect(rules.map((rule) => [rule.Action, rule.BlockResponse, lists[rule.FirewallDomainListId["Fn::GetAtt"][0]]])).toEqual([
      ["ALLOW", undefined, [regional("s3."), regional("*.s3.")]],
      ["BLOCK", "NXDOMAIN", ["*"]],
    ]);
    expect(associations.map(([, a]) => [a.Properties.VpcId, a.Properties.FirewallRuleGroupId])).toEqual([
      [{ Ref: vpcId }, { "Fn::GetAtt": [groups[0]![0], "Id"] }],
    ]);
    const configs = resourcesOfType(synth.json, "AWS::Route53Resolver::ResolverQueryLoggingConfig");
    expect(configs).toHaveLength(1);
    const [configId, config] = configs[0]!;
    const logged = resourcesOfType(synth.json, "AWS::Route53Resolver::ResolverQueryLoggingConfigAssociation").map(([, a]) => a.Properties);
    expect(logged).toEqual([{ ResolverQueryLogConfigId: { "Fn::GetAtt": [configId, "Id"] }, ResourceId: { Ref: vpcId } }]);
    const groupId = resourcesOfType(synth.json, "AWS::Logs::LogGroup").find(([id]) =>
      JSON.stringify(config.Properties.DestinationArn).includes(`"Ref":"${id}"`),
    )!;
    expect(groupId[1].Properties.RetentionInDays).toBe(7);
  });
});

describe.each(["office", "office-jobs"])("the %s function's role holds nothing", (office) => {
  it("may write its own log group and let Lambda manage its network interfaces, and nothing else", () => {
    const roleId = roleIdOf(office);
    const role = synth.json.Resources[roleId]!.Properties;
    expect(role.ManagedPolicyArns).toBeUndefined();
    const logGroup = (fnProps(office).LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    const policies = role.Policies as Array<{ PolicyDocument: { Statement: Statement[] } }>;
    expect(policies).toHaveLength(1);
    expect(policies[0]!.PolicyDocument.Statement).toEqual([
      { Effect: "Allow", Action: ["logs:CreateLogStream", "logs:PutLogEvents"], Resource: { "Fn::GetAtt": [logGroup, "Arn"] } },
      { Effect: "Allow", Action: [...eniActions].sort(), Resource: "*" },
    ]);
    // The function's own code may not use them: denied where the call carries the function's ARN
    // (Lambda's own calls for the network interfaces carry none).
    expect(statementsOf(roleId)).toEqual([
      {
        Effect: "Deny",
        Action: [...eniActions].sort(),
        Resource: "*",
        Condition: { ArnEquals: { "lambda:SourceFunctionArn": { "Fn::GetAtt": [functionLogicalId(office), "Arn"] } } },
      },
    ]);
  });

  it("is named by no bucket or key policy", () => {
    const roleId = roleIdOf(office);
    for (const type of ["AWS::S3::BucketPolicy", "AWS::KMS::Key", "AWS::DynamoDB::Table", "AWS::SecretsManager::Secret"]) {
      for (const [id, resource] of resourcesOfType(synth.json, type)) expect(JSON.stringify(resource.Properties), `${type} ${id}`).not.toContain(`"${roleId}"`);
    }
  });

  it("compared with sign's: sign keeps its key rights, the office function has none of them", () => {
    const data = /^(s3|dynamodb|kms|ssm|secretsmanager):/;
    const sign = statementsOf(roleIdOf("sign")).flatMap(actionsOf);
    expect(sign).toEqual(expect.arrayContaining(["kms:Sign", "kms:GetPublicKey", "s3:GetObject", "s3:PutObject"]));
    const identityReads = statementsOf(roleIdOf("sign")).filter((s) => JSON.stringify(s.Resource).includes("/identity.p12"));
    expect(identityReads.length).toBeGreaterThan(0);
    expect(
      statementsOf(roleIdOf(office))
        .flatMap(actionsOf)
        .filter((action) => data.test(action)),
    ).toEqual([]);
    // The KMS key policies let only sign's role sign: the office role appears in none (checked above) and holds no kms:* itself.
  });
});

describe("sign, annotate, convert and the job worker carry no LibreOffice", () => {
  it("are zips without an image or a layer", () => {
    // The job worker runs sign, annotate and convert as jobs, through the same office function.
    expect([...officeCallers].sort()).toEqual(["annotate", "convert", "jobs-worker", "merge", "pages", "sign", "split"]);
    for (const name of officeCallers) {
      const props = fnProps(name);
      expect(props.PackageType, name).not.toBe("Image");
      expect(props.Code, name).toEqual(expect.objectContaining({ S3Key: expect.stringMatching(/\.zip$/) }));
      expect(props.Layers, name).toBeUndefined();
      expect(props.ImageConfig, name).toBeUndefined();
    }
    expect(resourcesOfType(synth.json, "AWS::Lambda::LayerVersion")).toEqual([]);
  });

  it("may invoke their office function (and only they), and stage documents under office/ of the uploads bucket", () => {
    const invokers = resourcesOfType(synth.json, "AWS::Lambda::Function")
      .map(([id]) => id)
      .filter((id) => {
        const role = (synth.json.Resources[id]!.Properties.Role as { "Fn::GetAtt"?: [string, string] })["Fn::GetAtt"]?.[0];
        return role !== undefined && statementsOf(role).some((s) => actionsOf(s).includes("lambda:InvokeFunction"));
      });
    expect(invokers.sort()).toEqual(officeCallers.map(functionLogicalId).sort());
    for (const name of officeCallers) {
      const statements = statementsOf(roleIdOf(name));
      const invoke = statements.filter((s) => actionsOf(s).includes("lambda:InvokeFunction"));
      expect(invoke, name).toHaveLength(1);
      // The job worker the jobs' office function alone, the routes the office function alone.
      const target = name === "jobs-worker" ? "office-jobs" : "office";
      expect(planOf(name).office, name).toBe(target);
      expect(invoke[0]!.Resource, name).toEqual({ "Fn::GetAtt": [functionLogicalId(target), "Arn"] });
      const staging = statements.filter((s) => JSON.stringify(s.Resource).includes('"/office/*"'));
      expect(staging.flatMap(actionsOf).sort(), name).toEqual(["s3:DeleteObject", "s3:GetObject", "s3:PutObject"]);
    }
    // No resource policy opens an office function to anyone else (no Lambda permission, no URL).
    const permissions = resourcesOfType(synth.json, "AWS::Lambda::Permission").filter(([, p]) =>
      ["office", "office-jobs"].some((office) => JSON.stringify(p.Properties.FunctionName).includes(`"${functionLogicalId(office)}"`)),
    );
    expect(permissions).toEqual([]);
    expect(resourcesOfType(synth.json, "AWS::Lambda::Url")).toEqual([]);
  });

  it("expires what a failed job leaves under office/ after a day (the uploads bucket's rule has no prefix)", () => {
    const [, bucket] = resourcesOfType(synth.json, "AWS::S3::Bucket").find(([id]) => id.startsWith("UploadsBucket"))!;
    const rules = (
      bucket.Properties.LifecycleConfiguration as { Rules: Array<{ ExpirationInDays?: number; Prefix?: string; Filter?: unknown; Status: string }> }
    ).Rules;
    expect(rules).toContainEqual(expect.objectContaining({ ExpirationInDays: 1, Status: "Enabled" }));
    const expiring = rules.find((rule) => rule.ExpirationInDays === 1)!;
    expect(expiring.Prefix).toBeUndefined();
    expect(expiring.Filter).toBeUndefined();
  });
});

describe("the jobs' office function (issue 38: a job's conversion gets the job's budget)", () => {
  const env = (name: string) => (fnProps(name).Environment as { Variables: Record<string, unknown> }).Variables;

  it("runs the office function's image and handler, with the job's 15 minutes less margins as its time-out", () => {
    expect(OFFICE_JOBS_FUNCTION_TIMEOUT_SECONDS).toBe(874);
    expect(fnProps("office-jobs").Timeout).toBe(OFFICE_JOBS_FUNCTION_TIMEOUT_SECONDS);
    expect(fnProps("office").Timeout).toBe(OFFICE_FUNCTION_TIMEOUT_SECONDS);
    expect(fnProps("office-jobs").Timeout as number).toBeLessThan(JOB_WORKER_TIMEOUT_SECONDS);
    for (const key of ["Code", "ImageConfig", "PackageType", "MemorySize", "EphemeralStorage", "Architectures", "ReservedConcurrentExecutions"]) {
      expect(fnProps("office-jobs")[key], key).toEqual(fnProps("office")[key]);
    }
    // LibreOffice's own limit leaves the function's transfers and answer inside its time-out: 867 s, 76 s.
    expect(env("office-jobs").SIGNET_CONVERSION_TIMEOUT_MS).toBe("867000");
    expect(env("office").SIGNET_CONVERSION_TIMEOUT_MS).toBe("76000");
    expect({ ...env("office-jobs"), SIGNET_CONVERSION_TIMEOUT_MS: "" }).toEqual({ ...env("office"), SIGNET_CONVERSION_TIMEOUT_MS: "" });
  });

  it("is the one the job worker names, and no route's function names it", () => {
    for (const name of officeCallers) {
      const office = name === "jobs-worker" ? "office-jobs" : "office";
      expect(env(name).SIGNET_OFFICE_FUNCTION, name).toEqual({ Ref: functionLogicalId(office) });
    }
  });
});
