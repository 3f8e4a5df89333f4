import { cpSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CfnOutput, Duration, RemovalPolicy, Size, Stack, Stage, type StackProps } from "aws-cdk-lib";
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RestApi,
  TokenAuthorizer,
  type IResource,
} from "aws-cdk-lib/aws-apigateway";
import { Alarm, ComparisonOperator, Stats, TreatMissingData, type IAlarmAction } from "aws-cdk-lib/aws-cloudwatch";
import { SnsAction } from "aws-cdk-lib/aws-cloudwatch-actions";
import { AttributeType, BillingMode, Table } from "aws-cdk-lib/aws-dynamodb";
import { Platform } from "aws-cdk-lib/aws-ecr-assets";
import {
  Architecture,
  CfnFunction,
  DockerImageCode,
  DockerImageFunction,
  LayerVersion,
  Runtime,
  type ILayerVersion,
  type Function as LambdaFunction,
} from "aws-cdk-lib/aws-lambda";
import { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { EmailIdentity, Identity } from "aws-cdk-lib/aws-ses";
import { Topic } from "aws-cdk-lib/aws-sns";
import { EmailSubscription } from "aws-cdk-lib/aws-sns-subscriptions";
import type { Construct } from "constructs";
import { binaryMediaTypes, routes } from "#http/routes.ts";
import { bind, identityBucket, keyTable, keyTableActions, sender, setting } from "./bind.ts";
import { bundleForImage, nodejsBundling, repoRoot, type RuntimeFile } from "./bundling.ts";
import { addGatewayResponses } from "./gateway.ts";

/** SignetStackProps are the deployment choices, given as `-c name=value` context (infra/app.ts). */
export interface SignetStackProps extends StackProps {
  /** The address codes are sent from; SES verifies it (required). */
  senderEmail: string;
  /** Use zip functions with this LibreOffice layer instead of the container image. */
  libreOfficeLayerArn?: string;
  /** Where soffice lives inside that layer. */
  sofficePath?: string;
  /** RFC 3161 timestamp authority for PAdES B-T. */
  tsaUrl?: string;
  /** Password of an operator's identity.p12 in the bucket (lands in the functions' environment). */
  identityP12Password?: string;
  /** The account is in the SES sandbox (see bind.ts sender). */
  sesSandbox?: boolean;
  /** Where alarms are mailed (an SNS topic with an e-mail subscription); none when unset. */
  alarmEmail?: string;
  /** The CORS origin browsers may call from (SIGNET_CORS_ORIGIN of every function and the gateway's own error answers); "*" when unset. */
  corsOrigin?: string;
  /** Stage throttling: steady requests per second and burst. */
  throttle?: { rate: number; burst: number };
}

/** Sizing is the memory and time-out of one function. */
interface Sizing {
  memoryMb: number;
  timeoutSeconds: number;
}

/**
 * API Gateway gives up on an integration after 29 s (the REST default). Conversion functions get
 * the same time-out and stop LibreOffice a few seconds earlier, so a slow conversion still ends
 * in Signet's own 504 CONVERSION_TIMEOUT rather than a cut connection.
 */
const integrationTimeoutSeconds = 29;
const conversionTimeoutMs = (integrationTimeoutSeconds - 5) * 1000;

const small: Sizing = { memoryMb: 256, timeoutSeconds: 10 };
// LibreOffice wants memory (and the CPU share that comes with it): shelf recommends >= 3008 MB.
const conversion: Sizing = { memoryMb: 3008, timeoutSeconds: integrationTimeoutSeconds };

/**
 * The key functions wait on DynamoDB and SES through AWS SDK clients with bounded retries. Their
 * time-outs must stay ABOVE the worst-case SDK budgets (attempts x (connection + request
 * time-out) + back-off) of functions/adapters/dynamodb-key-store.ts and
 * functions/adapters/sesv2-mailer.ts, summed over the calls one request makes, so a slow
 * dependency ends in Signet's own 503 SERVICE_UNAVAILABLE / 502 EMAIL_FAILED rather than a
 * Lambda time-out (a bare 502 from the gateway). Register and verify-code make several table
 * calls and one SES call: 20 s. The authorizer makes one lookup and one stamp: 10 s (its failure
 * becomes the gateway's 503). All stay below API Gateway's 29 s. Change the SDK budgets and these
 * together.
 */
const keyFunction: Sizing = { memoryMb: 256, timeoutSeconds: 20 };
const authorizerSizing: Sizing = { memoryMb: 256, timeoutSeconds: 10 };

/** sizing sets memory and time-out per function: conversion large, auth and metadata small. */
const sizing: Record<string, Sizing> = {
  info: small,
  health: small,
  openapi: { memoryMb: 512, timeoutSeconds: 10 },
  docs: small,
  "auth-register": keyFunction,
  "auth-verify": keyFunction,
  authorizer: authorizerSizing,
  fallback: small,
  "verify-key": { memoryMb: 512, timeoutSeconds: 15 },
  verify: { memoryMb: 1024, timeoutSeconds: integrationTimeoutSeconds },
  "annotate-fields": { memoryMb: 1024, timeoutSeconds: integrationTimeoutSeconds },
  sign: conversion,
  annotate: conversion,
  convert: conversion,
};

/** libreOfficeFunctions run LibreOffice: DOCX input of sign, annotate with to=pdf, convert. */
export const libreOfficeFunctions = ["sign", "annotate", "convert"] as const;

/**
 * runtimeFiles are what a function reads from disk at run time, shipped beside its bundle (the
 * task root): the audit page fonts (SIGNET_FONTS_DIR points at them) and HarfBuzz's WebAssembly, the reference UI of /docs
 * (functions/http/docs-page.ts looks beside itself).
 */
const runtimeFiles: Record<string, RuntimeFile[]> = {
  // harfbuzzjs loads its WebAssembly from beside the module that imports it (the bundle).
  sign: [
    { from: "assets", to: "assets" },
    { from: "node_modules/harfbuzzjs/dist/harfbuzz.wasm", to: "harfbuzz.wasm" },
  ],
  docs: [{ from: "node_modules/@scalar/api-reference/dist/browser/standalone.js", to: "api-reference.standalone.js" }],
};

/** lambdaTaskRoot is where Lambda puts a function's code (zip) and where the Dockerfile copies the bundles. */
const lambdaTaskRoot = "/var/task";

/** sofficeInImage is where the base image's RPM installs LibreOffice. */
export const sofficeInImage = "/opt/libreoffice25.2/program/soffice";

/** defaultLayerSoffice is where unpacked LibreOffice layers usually put soffice. */
export const defaultLayerSoffice = "/opt/instdir/program/soffice";

/** logicalId turns a route name into the CloudFormation id of its function (sign -> SignFunction). */
export function functionLogicalId(name: string): string {
  return `${name.replace(/(^|-)([a-z])/g, (_, __, letter: string) => letter.toUpperCase())}Function`;
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * SignetStack deploys the API: one Lambda per route of functions/http/routes.ts behind a REST
 * API, the API-key authorizer, the key table, the SES sender, the signing-identity bucket,
 * LibreOffice for the converting functions, logs and alarms.
 *
 * Why a REST API (v1 payload), Regional, and not an HTTP API:
 * - binary bodies: binaryMediaTypes `*` + `/` + `*` hands every body to the function as base64 and
 *   decodes base64 answers (convert returns a PDF); the local server builds the same events;
 * - the TOKEN authorizer caches its decision per Authorization header, so a bad key never starts
 *   an expensive function and a good one costs one DynamoDB read per TTL;
 * - gateway responses let errors the gateway makes itself (no key, throttled, too large,
 *   time-out) speak Signet's error layout;
 * - stage throttling and per-method throttling (register) are built in;
 * - REST supports response streaming for the day answers outgrow Lambda's 6 MB;
 * - the 29 s integration time-out is the same as HTTP APIs' 30 s in practice, and a Regional
 *   REST API may raise it by quota request if LibreOffice cold starts need more.
 * Regional rather than edge-optimised: clients upload documents, a CloudFront hop adds nothing.
 */
export class SignetStack extends Stack {
  /** functions maps route names (and authorizer, fallback) to their Lambda functions. */
  readonly functions: Record<string, LambdaFunction> = {};
  readonly api: RestApi;

  constructor(scope: Construct, id: string, props: SignetStackProps) {
    super(scope, id, props);
    const version = packageVersion();
    const corsOrigin = props.corsOrigin ?? "*";

    // Data: keys and codes (schema in functions/adapters/dynamodb-key-store.ts), retained on destroy.
    const table = new Table(this, "KeyTable", {
      partitionKey: { name: "pk", type: AttributeType.STRING },
      sortKey: { name: "sk", type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: "expiresAt",
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // The signing identity (P12/PEM); created by the service on first use, replaceable by an operator.
    const bucket = new Bucket(this, "IdentityBucket", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    const senderIdentity = new EmailIdentity(this, "SenderIdentity", { identity: Identity.email(props.senderEmail) });

    // Functions: one per route, plus the authorizer and the fallback.
    const names = [...routes.map((route) => route.name), "authorizer", "fallback"];
    const imageDir = props.libreOfficeLayerArn ? undefined : this.prepareImage();
    const layer = props.libreOfficeLayerArn ? LayerVersion.fromLayerVersionArn(this, "LibreOfficeLayer", props.libreOfficeLayerArn) : undefined;
    for (const name of names) {
      const fn = this.createFunction(name, version, imageDir, layer, props.sofficePath);
      // config.ts requires both names at cold start in every function; a name grants nothing.
      fn.addEnvironment("SIGNET_TABLE", table.tableName);
      fn.addEnvironment("SIGNET_SENDER_EMAIL", props.senderEmail);
      // The CORS middleware of every function (functions/http/pipeline.ts) answers with this origin.
      bind(fn, setting("SIGNET_CORS_ORIGIN", corsOrigin));
      this.functions[name] = fn;
    }

    // Least privilege: each function gets the calls its adapters make, nothing else.
    const fns = this.functions as Record<string, LambdaFunction>;
    const mail = sender(senderIdentity, props.senderEmail, { sandbox: props.sesSandbox ?? false });
    bind(fns["auth-register"]!, keyTable(table, keyTableActions.readWrite), mail);
    bind(fns["auth-verify"]!, keyTable(table, keyTableActions.readWrite), mail);
    bind(fns.authorizer!, keyTable(table, keyTableActions.authorize));
    for (const name of ["sign", "verify", "verify-key"]) {
      bind(fns[name]!, identityBucket(bucket, "read-write"));
      if (props.identityP12Password) bind(fns[name]!, setting("SIGNET_IDENTITY_P12_PASSWORD", props.identityP12Password));
    }
    if (props.tsaUrl) bind(fns.sign!, setting("SIGNET_TSA_URL", props.tsaUrl));
    // The audit page fonts travel beside the bundle (runtimeFiles); the task root is /var/task for zips and the image alike.
    bind(fns.sign!, setting("SIGNET_FONTS_DIR", `${lambdaTaskRoot}/assets/fonts`));

    this.api = this.createApi(props, corsOrigin);

    this.createAlarms(props);

    new CfnOutput(this, "ApiUrl", { value: this.api.url, description: "Base URL of the Signet API" });
    new CfnOutput(this, "TableName", { value: table.tableName, description: "DynamoDB table of API keys and codes (retained)" });
    new CfnOutput(this, "IdentityBucketName", { value: bucket.bucketName, description: "S3 bucket of the signing identity (retained)" });
  }

  /** prepareImage bundles the LibreOffice functions into the container image's build folder. */
  private prepareImage(): string {
    const dir = join(Stage.of(this)?.outdir ?? join(repoRoot, "cdk.out"), ".signet-image");
    bundleForImage([...libreOfficeFunctions], join(dir, "app"), libreOfficeFunctions.flatMap((name) => runtimeFiles[name] ?? []));
    for (const entry of ["Dockerfile", "fonts", "warmup"]) {
      const source = join(repoRoot, "layers", "libreoffice", entry);
      if (!existsSync(source)) throw new Error(`layers/libreoffice/${entry} is missing`);
      cpSync(source, join(dir, entry), { recursive: true });
    }
    return dir;
  }

  private createFunction(name: string, version: string, imageDir: string | undefined, layer: ILayerVersion | undefined, sofficePath: string | undefined): LambdaFunction {
    const entry = join(repoRoot, "functions", `${name}.ts`);
    if (!existsSync(entry)) throw new Error(`Route ${name} has no entry file functions/${name}.ts`);
    const size = sizing[name] ?? small;
    const id = functionLogicalId(name);
    const logGroup = new LogGroup(this, `${id}Logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    const common = {
      description: `Signet ${name}`,
      architecture: Architecture.X86_64,
      memorySize: size.memoryMb,
      timeout: Duration.seconds(size.timeoutSeconds),
      logGroup,
      environment: { SIGNET_VERSION: version, POWERTOOLS_SERVICE_NAME: "signet" },
    };
    const isLibreOffice = (libreOfficeFunctions as readonly string[]).includes(name);
    let fn: LambdaFunction;
    if (isLibreOffice && imageDir) {
      fn = new DockerImageFunction(this, id, {
        ...common,
        code: DockerImageCode.fromImageAsset(imageDir, {
          cmd: [`${name}.handler`],
          platform: Platform.LINUX_AMD64,
        }),
        ephemeralStorageSize: Size.mebibytes(1024),
      });
      fn.addEnvironment("NODE_OPTIONS", "--enable-source-maps");
      fn.addEnvironment("SIGNET_SOFFICE", sofficeInImage);
    } else {
      fn = new NodejsFunction(this, id, {
        ...common,
        entry,
        handler: "handler",
        runtime: Runtime.NODEJS_22_X,
        projectRoot: repoRoot,
        depsLockFilePath: join(repoRoot, "package-lock.json"),
        bundling: nodejsBundling(runtimeFiles[name] ?? []),
        ...(isLibreOffice && layer ? { layers: [layer], ephemeralStorageSize: Size.mebibytes(1024) } : {}),
      });
      if (isLibreOffice) fn.addEnvironment("SIGNET_SOFFICE", sofficePath ?? defaultLayerSoffice);
    }
    if (isLibreOffice) {
      // LibreOffice writes its profile under HOME; only /tmp is writable in Lambda.
      fn.addEnvironment("HOME", "/tmp");
      fn.addEnvironment("SIGNET_CONVERSION_TIMEOUT_MS", String(conversionTimeoutMs));
      // A container serves one request at a time: one LibreOffice is enough.
      fn.addEnvironment("SIGNET_CONVERSION_CONCURRENCY", "1");
    }
    (fn.node.defaultChild as CfnFunction).overrideLogicalId(id);
    return fn;
  }

  private createApi(props: SignetStackProps, corsOrigin: string): RestApi {
    const fns = this.functions as Record<string, LambdaFunction>;
    const accessLogs = new LogGroup(this, "ApiAccessLogs", { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    const throttle = props.throttle ?? { rate: 50, burst: 100 };
    const registerRoute = routes.find((route) => route.name === "auth-register");
    const api = new RestApi(this, "Api", {
      restApiName: `${this.stackName}-api`,
      description: "Signet: sign, fill, convert",
      endpointConfiguration: { types: [EndpointType.REGIONAL] },
      binaryMediaTypes,
      // Gzip answers above 1 KiB for clients that accept it: /docs is 3.6 MB of HTML and script,
      // about 1 MB compressed; JSON answers with base64 documents shrink by a quarter.
      minCompressionSize: Size.kibibytes(1),
      // Access logs need API Gateway's account-level CloudWatch role (kept on destroy: it is shared).
      cloudWatchRole: true,
      deployOptions: {
        stageName: "prod",
        throttlingRateLimit: throttle.rate,
        throttlingBurstLimit: throttle.burst,
        loggingLevel: MethodLoggingLevel.OFF,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: "$context.requestId",
            ip: "$context.identity.sourceIp",
            method: "$context.httpMethod",
            path: "$context.path",
            status: "$context.status",
            responseLength: "$context.responseLength",
            latencyMs: "$context.responseLatency",
            integrationLatencyMs: "$context.integrationLatency",
            errorType: "$context.error.responseType",
            authorizerError: "$context.authorizer.error",
            integrationError: "$context.integration.error",
          }),
        ),
        // Codes by e-mail are the one thing worth abusing: register gets a tighter limit.
        methodOptions: registerRoute ? { [`${registerRoute.path}/${registerRoute.method}`]: { throttlingRateLimit: 5, throttlingBurstLimit: 10 } } : {},
      },
      // No defaultCorsPreflightOptions: they add MOCK OPTIONS integrations without contentHandling,
      // and with binaryMediaTypes */* API Gateway answers those with 500 "Unable to transform
      // request". OPTIONS falls through to the ANY fallback below (no authorizer), whose CORS
      // middleware (functions/http/pipeline.ts) answers the preflight exactly as the local server does.
    });

    const authorizer = new TokenAuthorizer(this, "KeyAuthorizer", {
      handler: fns.authorizer!,
      identitySource: IdentitySource.header("Authorization"),
      resultsCacheTtl: Duration.seconds(300),
    });

    const known = new Set<IResource>([api.root]);
    for (const route of routes) {
      const resource = api.root.resourceForPath(route.path);
      for (let at: IResource | undefined = resource; at; at = at.parentResource) known.add(at);
      resource.addMethod(
        route.method,
        new LambdaIntegration(fns[route.name]!, { allowTestInvoke: false, timeout: Duration.seconds(integrationTimeoutSeconds) }),
        route.auth ? { authorizer, authorizationType: AuthorizationType.CUSTOM } : {},
      );
    }

    // The fallback answers what no route claims, in the error layout: 405 (with Allow) on a known
    // path, 404 elsewhere, and CORS preflight (OPTIONS) everywhere. ANY loses to a specific method
    // on the same resource. Never behind the authorizer: browsers send preflights without the
    // Authorization header, so an authorizer there would turn every preflight into a 401.
    const fallback = new LambdaIntegration(fns.fallback!, { scopePermissionToMethod: false });
    known.add(api.root.addResource("{proxy+}"));
    for (const resource of known) resource.addMethod("ANY", fallback, { authorizationType: AuthorizationType.NONE });

    // The gateway's own errors carry the same origin as the functions' answers.
    addGatewayResponses(api, corsOrigin);
    // The stack outputs the URL as ApiUrl; drop RestApi's own output with a generated name.
    api.node.tryRemoveChild("Endpoint");
    return api;
  }

  private createAlarms(props: SignetStackProps): void {
    let action: IAlarmAction | undefined;
    if (props.alarmEmail) {
      const topic = new Topic(this, "AlarmTopic", { displayName: "Signet alarms" });
      topic.addSubscription(new EmailSubscription(props.alarmEmail));
      action = new SnsAction(topic);
    }
    const alarms: Alarm[] = [];
    alarms.push(
      new Alarm(this, "Api5xxRateAlarm", {
        alarmDescription: "More than 5% of API requests answered 5xx over 10 minutes",
        metric: this.api.metricServerError({ statistic: Stats.AVERAGE, period: Duration.minutes(5) }),
        threshold: 0.05,
        evaluationPeriods: 2,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
    for (const [name, fn] of Object.entries(this.functions)) {
      const id = functionLogicalId(name);
      const timeoutMs = (sizing[name] ?? small).timeoutSeconds * 1000;
      alarms.push(
        new Alarm(this, `${id}ThrottlesAlarm`, {
          alarmDescription: `Lambda throttled ${name} (account concurrency exhausted?)`,
          metric: fn.metricThrottles({ statistic: Stats.SUM, period: Duration.minutes(5) }),
          threshold: 1,
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
        new Alarm(this, `${id}DurationAlarm`, {
          alarmDescription: `${name} ran within 20% of its ${timeoutMs / 1000} s time-out`,
          metric: fn.metricDuration({ statistic: Stats.MAXIMUM, period: Duration.minutes(5) }),
          threshold: Math.round(timeoutMs * 0.8),
          evaluationPeriods: 1,
          comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: TreatMissingData.NOT_BREACHING,
        }),
      );
    }
    if (action) for (const alarm of alarms) alarm.addAlarmAction(action);
  }
}
