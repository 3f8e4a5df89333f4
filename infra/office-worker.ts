import { Duration, RemovalPolicy, Size } from "aws-cdk-lib";
import { FlowLogDestination, FlowLogTrafficType, GatewayVpcEndpointAwsService, Peer, Port, SecurityGroup, SubnetType, Vpc } from "aws-cdk-lib/aws-ec2";
import { ManagedPolicy, PolicyStatement, Role, ServicePrincipal, type IGrantable } from "aws-cdk-lib/aws-iam";
import { Architecture, type DockerImageCode, DockerImageFunction } from "aws-cdk-lib/aws-lambda";
import { type ILogGroup, LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { Construct } from "constructs";

/** OfficeWorkerProps configure the office function: its image (LibreOffice and the office handler) and settings. */
export interface OfficeWorkerProps {
  code: DockerImageCode;
  environment?: Record<string, string>;
  memoryMb?: number;
  timeout?: Duration;
  /** Size of /tmp (LibreOffice's profile, the job files). */
  ephemeralStorageMb?: number;
  logGroup?: ILogGroup;
}

/**
 * OfficeWorker is where LibreOffice runs on AWS: one internal Lambda function, invoked
 * by the functions that convert, in a VPC whose subnets are isolated (no NAT gateway, no internet
 * gateway), whose only route out is the VPC's S3 gateway endpoint (HTTPS,
 * for the presigned GET of a large input and PUT of a large output), and a role
 * that may write its logs and manage its network interfaces and nothing else: no secret, key,
 * table or bucket is within its reach, so a document that takes LibreOffice over finds nothing
 * to steal and no way out.
 */
export class OfficeWorker extends Construct {
  /** fn is the office function. */
  readonly fn: DockerImageFunction;
  /** vpc holds it: isolated subnets only, one S3 gateway endpoint. */
  readonly vpc: Vpc;

  constructor(scope: Construct, id: string, props: OfficeWorkerProps) {
    super(scope, id);
    this.vpc = new Vpc(this, "Vpc", {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: "office", subnetType: SubnetType.PRIVATE_ISOLATED, cidrMask: 24 }],
      gatewayEndpoints: { S3: { service: GatewayVpcEndpointAwsService.S3 } },
    });
    // Every connection LibreOffice's function opens or tries, kept a month: a document that makes
    // it reach for the internet shows up here (accepted by the security group, going nowhere).
    this.vpc.addFlowLog("FlowLog", {
      destination: FlowLogDestination.toCloudWatchLogs(
        new LogGroup(this, "FlowLogs", { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
      ),
      trafficType: FlowLogTrafficType.ALL,
    });
    const securityGroup = new SecurityGroup(this, "SecurityGroup", {
      vpc: this.vpc,
      allowAllOutbound: false,
      description: "Signet office worker: HTTPS to S3 (gateway endpoint) only",
    });
    // HTTPS out; the only route out of the isolated subnets is the S3 gateway endpoint's (no 0.0.0.0/0 route exists).
    securityGroup.addEgressRule(Peer.anyIpv4(), Port.tcp(443), "S3 through the gateway endpoint (presigned URLs); no other route exists");
    const role = new Role(this, "Role", {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: "Signet office worker: logs and its network interfaces, nothing else",
      // CloudWatch Logs, and the ENI calls a function in a VPC needs (no data access).
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName("service-role/AWSLambdaVPCAccessExecutionRole")],
    });
    this.fn = new DockerImageFunction(this, "Function", {
      code: props.code,
      role,
      vpc: this.vpc,
      vpcSubnets: { subnetType: SubnetType.PRIVATE_ISOLATED },
      securityGroups: [securityGroup],
      architecture: Architecture.X86_64,
      memorySize: props.memoryMb ?? 3008,
      timeout: props.timeout ?? Duration.seconds(120),
      description: "Signet office worker: LibreOffice, no network, no permissions",
      ...(props.ephemeralStorageMb ? { ephemeralStorageSize: Size.mebibytes(props.ephemeralStorageMb) } : {}),
      ...(props.logGroup ? { logGroup: props.logGroup } : {}),
      // LibreOffice writes its profile under HOME; only /tmp is writable in Lambda.
      environment: { HOME: "/tmp", ...props.environment },
    });
  }

  /** grantInvoke lets a converting function (convert, annotate, sign) invoke the office function. */
  grantInvoke(grantee: IGrantable): void {
    // The function itself (its unqualified ARN, which the callers invoke), not its versions and aliases.
    grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: ["lambda:InvokeFunction"], resources: [this.fn.functionArn] }));
  }
}
