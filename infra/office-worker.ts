import { Duration, RemovalPolicy, Size, Stack } from "aws-cdk-lib";
import {
  type CfnSecurityGroup,
  FlowLogDestination,
  FlowLogTrafficType,
  type GatewayVpcEndpoint,
  GatewayVpcEndpointAwsService,
  SecurityGroup,
  SubnetType,
  Vpc,
} from "aws-cdk-lib/aws-ec2";
import { AnyPrincipal, Effect, Policy, PolicyDocument, PolicyStatement, Role, ServicePrincipal, type IGrantable } from "aws-cdk-lib/aws-iam";
import { Architecture, type DockerImageCode, DockerImageFunction, type IFunction } from "aws-cdk-lib/aws-lambda";
import { type ILogGroup, LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId } from "aws-cdk-lib/custom-resources";
import { Construct } from "constructs";
import { OfficeDnsFirewall } from "./office-dns.ts";

/** OfficeWorkerProps configure an office function: its image (LibreOffice and the office handler) and settings. */
export interface OfficeWorkerProps {
  code: DockerImageCode;
  environment?: Record<string, string>;
  memoryMb?: number;
  timeout?: Duration;
  /** Size of /tmp (LibreOffice's profile, the job files). */
  ephemeralStorageMb?: number;
  /** The function's log group: the only one its role may write to (one of its own, kept a month, when unset). */
  logGroup?: ILogGroup;
}

/**
 * eniActions are the calls Lambda makes with the function's role to attach it to the VPC (the
 * network part of AWSLambdaVPCAccessExecutionRole).
 */
export const eniActions = [
  "ec2:CreateNetworkInterface",
  "ec2:DescribeNetworkInterfaces",
  "ec2:DescribeSubnets",
  "ec2:DeleteNetworkInterface",
  "ec2:AssignPrivateIpAddresses",
  "ec2:UnassignPrivateIpAddresses",
];

/**
 * OfficeWorker is where LibreOffice runs on AWS: one internal Lambda function, invoked by the
 * functions that convert, in a VPC whose subnets are isolated (no NAT gateway, no internet
 * gateway). Its one way out is the S3 gateway endpoint, whose policy admits only GET and PUT of
 * the uploads bucket's office/ objects (allowObjects), reached on 443 of S3's prefix list alone;
 * its DNS answers only S3's regional names (OfficeDnsFirewall). Its role may write its own log
 * group and lets Lambda manage its network interfaces, which the function's own code may not:
 * no secret, key, table or bucket is within its reach, so a document that takes LibreOffice over
 * finds nothing to steal and no way out.
 */
export class OfficeWorker extends Construct {
  /** fn is the office function. */
  readonly fn: DockerImageFunction;
  /** vpc holds it: isolated subnets only, one S3 gateway endpoint. */
  readonly vpc: Vpc;
  /** s3Endpoint is the VPC's one way out; allowObjects opens it to objects. */
  readonly s3Endpoint: GatewayVpcEndpoint;
  /** prefixListLookup finds S3's prefix list at deploy (CDK's AwsCustomResource: one function of CDK's own). */
  readonly prefixListLookup: AwsCustomResource;
  /** securityGroup is every office function's: HTTPS to S3's prefix list, nothing else. */
  private readonly securityGroup: SecurityGroup;

  constructor(scope: Construct, id: string, props: OfficeWorkerProps) {
    super(scope, id);
    this.vpc = new Vpc(this, "Vpc", {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: "office", subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
    });
    // Same id as the former gatewayEndpoints entry ("S3"), so the endpoint is not replaced.
    this.s3Endpoint = this.vpc.addGatewayEndpoint("S3", { service: GatewayVpcEndpointAwsService.S3 });
    // Every connection LibreOffice's function opens or tries, kept a month: a document that makes
    // it reach for the internet shows up here (refused by the security group, going nowhere).
    this.vpc.addFlowLog("FlowLog", {
      destination: FlowLogDestination.toCloudWatchLogs(
        new LogGroup(this, "FlowLogs", { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
      ),
      trafficType: FlowLogTrafficType.ALL,
    });
    // Names, which flow logs do not show: only S3's are answered, every query is logged.
    new OfficeDnsFirewall(this, "Dns", { vpc: this.vpc });
    const securityGroup = new SecurityGroup(this, "SecurityGroup", {
      vpc: this.vpc,
      allowAllOutbound: false,
      description: "Signet office worker: HTTPS to S3 (gateway endpoint prefix list) only",
    });
    this.prefixListLookup = this.lookUpS3PrefixList();
    const prefixListId = this.prefixListLookup.getResponseField("PrefixLists.0.PrefixListId");
    // Inline, as the group's only egress rule: addEgressRule would make a prefix-list rule a resource
    // of its own (the id is known at deploy only) and leave the group without inline rules, which
    // EC2 reads as its default "all traffic to 0.0.0.0/0".
    (securityGroup.node.defaultChild as CfnSecurityGroup).securityGroupEgress = [
      {
        ipProtocol: "tcp",
        fromPort: 443,
        toPort: 443,
        destinationPrefixListId: prefixListId,
        description: "S3 through the gateway endpoint (presigned URLs) only",
      },
    ];
    this.securityGroup = securityGroup;
    this.fn = this.addFunction("", props);
  }

  /**
   * addFunction adds an office function from `props` (the first is the office function itself;
   * ids prefixed by `id` for the others) in this VPC, with this security group, its own log group and a
   * role as narrow as the first's: every office function gets the same isolation.
   */
  addFunction(id: string, props: OfficeWorkerProps): DockerImageFunction {
    const logGroup = props.logGroup ?? new LogGroup(this, `${id}Logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    const role = this.createRole(`${id}Role`, logGroup);
    const fn = new DockerImageFunction(this, `${id}Function`, {
      code: props.code,
      role,
      vpc: this.vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
      securityGroups: [this.securityGroup],
      architecture: Architecture.X86_64,
      memorySize: props.memoryMb ?? 3008,
      timeout: props.timeout ?? Duration.seconds(120),
      description: "Signet office worker: LibreOffice, no network, no permissions",
      ...(props.ephemeralStorageMb ? { ephemeralStorageSize: Size.mebibytes(props.ephemeralStorageMb) } : {}),
      logGroup,
      // LibreOffice writes its profile under HOME; only /tmp is writable in Lambda.
      environment: { HOME: "/tmp", ...props.environment },
    });
    // The network interface calls are Lambda's, made outside the execution environment without a
    // source function ARN; the same calls from the function's own code carry its ARN and are
    // denied (AWS Lambda Developer Guide, "Using source function ARN to control function access
    // behavior"). A policy of its own: it names the function, which must not wait for it.
    new Policy(this, `${id}EniGuard`, {
      roles: [role],
      statements: [
        new PolicyStatement({
          effect: Effect.DENY,
          actions: eniActions,
          resources: ["*"],
          conditions: { ArnEquals: { "lambda:SourceFunctionArn": fn.functionArn } },
        }),
      ],
    });
    return fn;
  }

  /** allowObjects lets the office function GET and PUT (by presigned URL) the bucket's objects under prefix, and nothing else through the S3 endpoint. */
  allowObjects(bucket: IBucket, objects: string): void {
    this.s3Endpoint.addToPolicy(
      new PolicyStatement({ principals: [new AnyPrincipal()], actions: ["s3:GetObject", "s3:PutObject"], resources: [bucket.arnForObjects(objects)] }),
    );
  }

  /** grantInvoke lets a converting function (convert, annotate, sign; the job worker) invoke one office function (the first when unnamed). */
  grantInvoke(grantee: IGrantable, fn: IFunction = this.fn): void {
    // The function itself (its unqualified ARN, which the callers invoke), not its versions and aliases.
    grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [fn.functionArn] }));
  }

  /** createRole: its own log group, and the network interface calls Lambda makes for it; no managed policy. */
  private createRole(id: string, logGroup: ILogGroup): Role {
    return new Role(this, id, {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: "Signet office worker: its own logs and its network interfaces, nothing else",
      inlinePolicies: {
        OwnLogsAndNetworkInterfaces: new PolicyDocument({
          statements: [
            // The group exists (the stack makes it): streams and events in it, nothing else.
            new PolicyStatement({ actions: ["logs:CreateLogStream", "logs:PutLogEvents"], resources: [logGroup.logGroupArn] }),
            // EC2 authorises these on "*" only (DescribeNetworkInterfaces takes no resource).
            new PolicyStatement({ actions: eniActions, resources: ["*"] }),
          ],
        }),
      },
    });
  }

  /**
   * lookUpS3PrefixList finds the region's AWS-managed S3 prefix list (com.amazonaws.<region>.s3),
   * the addresses the gateway endpoint routes: CloudFormation has no attribute for its id, and a
   * synth-time lookup would need credentials, so a DescribeManagedPrefixLists call at deploy.
   */
  private lookUpS3PrefixList(): AwsCustomResource {
    const name = `com.amazonaws.${Stack.of(this).region}.s3`;
    return new AwsCustomResource(this, "S3PrefixList", {
      onUpdate: {
        service: "EC2",
        action: "describeManagedPrefixLists",
        parameters: { Filters: [{ Name: "prefix-list-name", Values: [name] }] },
        physicalResourceId: PhysicalResourceId.of(name),
        outputPaths: ["PrefixLists.0.PrefixListId"],
      },
      policy: AwsCustomResourcePolicy.fromSdkCalls({ resources: AwsCustomResourcePolicy.ANY_RESOURCE }),
      installLatestAwsSdk: false,
      // Its own, deleted with the stack (CDK's default group for it is retained).
      logGroup: new LogGroup(this, "S3PrefixListLogs", { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
    });
  }
}
