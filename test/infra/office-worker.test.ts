// The office worker: where LibreOffice runs on AWS has no route to the internet and a
// role with no data permission. The construct alone, in a test stack (the whole stack:
// office-stack.test.ts).
import { App, Stack } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { ServicePrincipal, Role } from "aws-cdk-lib/aws-iam";
import { DockerImageCode } from "aws-cdk-lib/aws-lambda";
import { Repository } from "aws-cdk-lib/aws-ecr";
import { describe, expect, it } from "vitest";
import { OfficeWorker } from "../../infra/office-worker.ts";
import { cdkJsonContext } from "#test/helpers/infra-synth.ts";

function synth(): { template: Template; json: { Resources: Record<string, { Type: string; Properties: Record<string, any> }> } } {
  const app = new App({ context: cdkJsonContext });
  const stack = new Stack(app, "OfficeTest", { env: { account: "123456789012", region: "eu-west-1" } });
  const code = DockerImageCode.fromEcr(Repository.fromRepositoryName(stack, "Repo", "signet-office"));
  const worker = new OfficeWorker(stack, "Office", { code });
  const caller = new Role(stack, "Caller", { assumedBy: new ServicePrincipal("lambda.amazonaws.com") });
  worker.grantInvoke(caller);
  const template = Template.fromStack(stack);
  return { template, json: template.toJSON() as ReturnType<typeof synth>["json"] };
}

const { template, json } = synth();
const resources = Object.entries(json.Resources);
const ofType = (type: string) => resources.filter(([, resource]) => resource.Type === type);

describe("the office worker", () => {
  it("has no route to the internet: no NAT or internet gateway, no public subnet, no default route", () => {
    for (const type of ["AWS::EC2::NatGateway", "AWS::EC2::InternetGateway", "AWS::EC2::VPCGatewayAttachment", "AWS::EC2::EgressOnlyInternetGateway"]) {
      expect(ofType(type), type).toEqual([]);
    }
    for (const [, subnet] of ofType("AWS::EC2::Subnet")) expect(subnet.Properties.MapPublicIpOnLaunch).toBe(false);
    for (const [, route] of ofType("AWS::EC2::Route")) expect(route.Properties.DestinationCidrBlock).toBeUndefined();
    // The one way out: the S3 gateway endpoint, for presigned URLs.
    template.hasResourceProperties("AWS::EC2::VPCEndpoint", { VpcEndpointType: "Gateway", ServiceName: Match.objectLike({}) });
    expect(ofType("AWS::EC2::VPCEndpoint")).toHaveLength(1);
  });

  it("runs in the isolated subnets", () => {
    // (the other function is CDK's custom resource that empties the VPC's default security group)
    const functions = ofType("AWS::Lambda::Function").filter(([id]) => id.startsWith("OfficeFunction"));
    expect(functions).toHaveLength(1);
    const fn = functions[0]![1];
    expect(fn.Properties.VpcConfig.SubnetIds.length).toBe(2);
    expect(fn.Properties.Environment.Variables).toEqual({ HOME: "/tmp" });
  });

  it("has a role that may write its own logs and let Lambda manage its network interfaces, nothing else", () => {
    const roles = ofType("AWS::IAM::Role").filter(([id]) => id.startsWith("OfficeRole"));
    expect(roles).toHaveLength(1);
    const [roleId, role] = roles[0]!;
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    const [logGroup] = ofType("AWS::Logs::LogGroup").find(([id]) => id.startsWith("OfficeLogs"))!;
    expect(role.Properties.Policies[0].PolicyDocument.Statement[0]).toEqual({
      Effect: "Allow",
      Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
      Resource: { "Fn::GetAtt": [logGroup, "Arn"] },
    });
    // The one policy attached beside it denies the function's own code the network interface calls.
    const attached = ofType("AWS::IAM::Policy").filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(roleId));
    expect(attached.flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement.map((s: { Effect: string }) => s.Effect))).toEqual(["Deny"]);
  });

  it("is invoked by the converting functions' roles (grantInvoke), not by the public", () => {
    const policies = ofType("AWS::IAM::Policy").map(([, policy]) => JSON.stringify(policy.Properties.PolicyDocument));
    expect(policies.some((document) => document.includes("lambda:InvokeFunction"))).toBe(true);
    expect(ofType("AWS::Lambda::Permission")).toEqual([]);
    expect(ofType("AWS::Lambda::Url")).toEqual([]);
  });

  it("lets its security group send HTTPS to S3's prefix list only, inline (no rule of its own leaves EC2's default all-traffic rule)", () => {
    template.hasResourceProperties("AWS::EC2::SecurityGroup", {
      SecurityGroupEgress: [
        Match.objectEquals({ IpProtocol: "tcp", FromPort: 443, ToPort: 443, DestinationPrefixListId: Match.anyValue(), Description: Match.anyValue() }),
      ],
    });
    expect(ofType("AWS::EC2::SecurityGroupEgress")).toEqual([]);
  });
});
