// The office function in the whole stack: LibreOffice runs only there, with no
// route to the internet and a role without any data permission; sign, annotate and convert carry
// no LibreOffice (no image, no layer) and reach it by invoking, while sign keeps its key rights.
import { beforeAll, describe, expect, it } from "vitest";
import { officeCallers } from "../../infra/function-plans.ts";
import { functionLogicalId } from "../../infra/signet-stack.ts";
import { resourcesOfType, synthesize, type Synthesized, SYNTH_TIMEOUT_MS } from "#test/helpers/infra-synth.ts";

let synth: Synthesized;
beforeAll(() => {
  synth = synthesize({ senderEmail: "noreply@example.com" });
}, SYNTH_TIMEOUT_MS);

type Statement = { Action: string | string[]; Resource: unknown; Effect: string };
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
    const egress = synth.json.Resources[groupId]!.Properties.SecurityGroupEgress as Array<Record<string, unknown>>;
    expect(egress).toEqual([expect.objectContaining({ IpProtocol: "tcp", FromPort: 443, ToPort: 443 })]);
    // No other function of the stack is in a VPC: only the office function is boxed (and needs to be).
    const inVpc = resourcesOfType(synth.json, "AWS::Lambda::Function").filter(([, fn]) => fn.Properties.VpcConfig !== undefined);
    expect(inVpc.map(([id]) => id)).toEqual([functionLogicalId("office")]);
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
});

describe("the office function's role holds nothing", () => {
  it("may write logs and manage its network interfaces, and nothing else", () => {
    const roleId = roleIdOf("office");
    const role = synth.json.Resources[roleId]!.Properties;
    expect(JSON.stringify(role.ManagedPolicyArns)).toContain("service-role/AWSLambdaVPCAccessExecutionRole");
    expect(role.ManagedPolicyArns).toHaveLength(1);
    expect(role.Policies).toBeUndefined();
    expect(statementsOf(roleId)).toEqual([]);
  });

  it("is named by no bucket or key policy", () => {
    const roleId = roleIdOf("office");
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
      statementsOf(roleIdOf("office"))
        .flatMap(actionsOf)
        .filter((action) => data.test(action)),
    ).toEqual([]);
    // The KMS key policies let only sign's role sign: the office role appears in none (checked above) and holds no kms:* itself.
  });
});

describe("sign, annotate and convert carry no LibreOffice", () => {
  it("are zips without an image or a layer", () => {
    expect([...officeCallers].sort()).toEqual(["annotate", "convert", "sign"]);
    for (const name of officeCallers) {
      const props = fnProps(name);
      expect(props.PackageType, name).not.toBe("Image");
      expect(props.Code, name).toEqual(expect.objectContaining({ S3Key: expect.stringMatching(/\.zip$/) }));
      expect(props.Layers, name).toBeUndefined();
      expect(props.ImageConfig, name).toBeUndefined();
    }
    expect(resourcesOfType(synth.json, "AWS::Lambda::LayerVersion")).toEqual([]);
  });

  it("may invoke the office function (and only they), and stage documents under office/ of the uploads bucket", () => {
    const invokers = resourcesOfType(synth.json, "AWS::Lambda::Function")
      .map(([id]) => id)
      .filter((id) => id !== functionLogicalId("office"))
      .filter((id) => {
        const role = (synth.json.Resources[id]!.Properties.Role as { "Fn::GetAtt"?: [string, string] })["Fn::GetAtt"]?.[0];
        return role !== undefined && statementsOf(role).some((s) => actionsOf(s).includes("lambda:InvokeFunction"));
      });
    expect(invokers.sort()).toEqual(officeCallers.map(functionLogicalId).sort());
    for (const name of officeCallers) {
      const statements = statementsOf(roleIdOf(name));
      const invoke = statements.filter((s) => actionsOf(s).includes("lambda:InvokeFunction"));
      expect(invoke, name).toHaveLength(1);
      expect(JSON.stringify(invoke[0]!.Resource), name).toContain(`"${functionLogicalId("office")}","Arn"`);
      const staging = statements.filter((s) => JSON.stringify(s.Resource).includes('"/office/*"'));
      expect(staging.flatMap(actionsOf).sort(), name).toEqual(["s3:DeleteObject", "s3:GetObject", "s3:PutObject"]);
    }
    // No resource policy opens the office function to anyone else (no Lambda permission, no URL).
    const permissions = resourcesOfType(synth.json, "AWS::Lambda::Permission").filter(([, p]) =>
      JSON.stringify(p.Properties.FunctionName).includes(`"${functionLogicalId("office")}"`),
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
