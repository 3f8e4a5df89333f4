import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { CfnOutput, Duration, RemovalPolicy, Size, Stack, Stage, type StackProps } from "aws-cdk-lib";
import {
  AccessLogFormat,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  ResponseTransferMode,
  RestApi,
  TokenAuthorizer,
  type IResource,
} from "aws-cdk-lib/aws-apigateway";
import { CfnBudget } from "aws-cdk-lib/aws-budgets";
import { AttributeType, BillingMode, Table } from "aws-cdk-lib/aws-dynamodb";
import { Platform } from "aws-cdk-lib/aws-ecr-assets";
import { Architecture, type CfnFunction, DockerImageCode, Runtime, type Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { NodejsFunction } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, RetentionDays } from "aws-cdk-lib/aws-logs";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { ConfigurationSet, SuppressionReasons } from "aws-cdk-lib/aws-ses";
import type { Construct } from "constructs";
import { registryModificationsText } from "#adapters/libreoffice/profile.ts";
import { KEY_LENGTH, KEY_PREFIX } from "#domain/keys/api-key.ts";
import { binaryMediaTypes, routes } from "#http/routes.ts";
import { CrlIssuer } from "./crl-issuer.ts";
import { WebhookSweeper } from "./webhook-sweeper.ts";
import { SigningKeys } from "./signing-keys.ts";
import { sofficeInImage } from "./base-image.ts";
import { type AlarmSet, createAlarms } from "./alarms.ts";
import { applyReservedConcurrency, type ReservedConcurrency } from "./concurrency.ts";
import {
  type Binding,
  bind,
  idempotencyStore,
  identityBucket,
  jobStore,
  keyTable,
  keyTableActions,
  secureParameter,
  sender,
  setting,
  webhookSecrets,
} from "./bind.ts";
import { JobWorker } from "./jobs.ts";
import { functionPlans, officeCallers, planOf, type FunctionName, type OfficeFunctionName } from "./function-plans.ts";
import { OfficeWorker } from "./office-worker.ts";
import { bundleForImage, nodejsBundling, repoRoot, type RuntimeFile } from "./bundling.ts";
import { addGatewayResponses, routeMethods, tightThrottle } from "./gateway.ts";
import { acknowledgeNagFindings } from "./nag.ts";
import { checkRegion } from "./regions.ts";
import { senderIdentities } from "./sender-identity.ts";
import { addUploads, officeObjects, officeStaging } from "./uploads.ts";
import { AUTHORIZER_CACHE_SECONDS, INTEGRATION_TIMEOUT_SECONDS, officeConversionLimitMs, STREAMING_TIMEOUT_SECONDS } from "#functions/timeouts.ts";

/** SignetStackProps are the deployment choices, given as `-c name=value` context (infra/app.ts). */
export interface SignetStackProps extends StackProps {
  /** The address codes are sent from; SES verifies it (required). */
  senderEmail: string;
  /**
   * What the office image is built FROM (the Dockerfile's BASE_REF): the LibreOffice base tag with
   * its digest (tag@sha256:...), or the bare tag when none could be found (infra/base-image.ts).
   */
  libreOfficeBaseImage: string;
  /** RFC 3161 timestamp authority for PAdES B-T. */
  tsaUrl?: string;
  /**
   * A folder of TrueType fonts (on the deploying machine) copied into the sign function's image as
   * further certificate-page fallbacks (SIGNET_EXTRA_FONTS_DIR); for CJK Extension B Debian's
   * /usr/share/fonts/truetype/hanazono (52 MB; HanaMinB.ttf alone 30.7 MB). None when unset.
   */
  extraFontsDir?: string;
  /**
   * Name of the SSM SecureString holding the password of an operator's identity.p12. Only the
   * name reaches the template; sign reads the value at run time.
   */
  identityP12PasswordParameter?: string;
  /** Where the signing key lives: "kms" (the default: two KMS keys, infra/signing-keys.ts) or "file" (a key file in the identity bucket). */
  signingKey?: "kms" | "file";
  /**
   * The sender address (or its domain) is already a verified SES identity of the account and
   * region: the stack creates none (creating it again fails the deploy; infra/sender-identity.ts).
   */
  existingSenderIdentity?: boolean;
  /** The account is in the SES sandbox (see bind.ts sender); true (safe for new accounts) unless false. */
  sesSandbox?: boolean;
  /** Where alarms are mailed (an SNS topic with an e-mail subscription); none when unset. */
  alarmEmail?: string;
  /** Which alarms (infra/alarms.ts): "small" (the default, within the free tier) or "full". */
  alarms?: AlarmSet;
  /** Requests one API key may make per minute on authorised routes (SIGNET_KEY_RATE_LIMIT); 60 when unset. */
  keyRatePerMinute?: number;
  /** Who may register: addresses and domains, comma-separated (SIGNET_REGISTER_ALLOW); anyone when unset. */
  registerAllow?: string;
  /** The CORS origin browsers may call from (SIGNET_CORS_ORIGIN of every function and the gateway's own error answers); "*" when unset. */
  corsOrigin?: string;
  /** Reserved concurrency per function (infra/concurrency.ts); none when unset, which any account accepts. */
  reservedConcurrency?: ReservedConcurrency;
  /** A monthly AWS Budgets cost alarm at this many USD, mailed to alarmEmail. */
  budgetUsd?: number;
  /** Stage throttling: steady requests per second and burst. */
  throttle?: { rate: number; burst: number };
}

// Time-outs live in functions/timeouts.ts, beside the SDK budgets they must stay above; sizes in infra/function-plans.ts.
const integrationTimeoutSeconds = INTEGRATION_TIMEOUT_SECONDS;
const streamingTimeoutSeconds = STREAMING_TIMEOUT_SECONDS;
const authorizerCacheSeconds = AUTHORIZER_CACHE_SECONDS;

/**
 * authorizationHeaderPattern is the one Authorization header shape the TOKEN authorizer is invoked
 * for: "Bearer " and a key as functions/domain/keys/api-key.ts makes them (sgn_ + base62 random part and
 * checksum). The scheme is case-sensitive here, unlike parseBearer.
 */
const authorizationHeaderPattern = `^Bearer ${KEY_PREFIX}[0-9A-Za-z]{${KEY_LENGTH - KEY_PREFIX.length}}$`;

/** EXTRA_FONTS_IN_BUNDLE is where -c extraFontsDir's fonts land beside sign's bundle. */
const EXTRA_FONTS_IN_BUNDLE = "extra-fonts";

/** lambdaTaskRoot is where Lambda puts a function's code (zip) and where the Dockerfile copies the bundles. */
const lambdaTaskRoot = "/var/task";

/** The LibreOffice profile template the image build makes (layers/libreoffice/Dockerfile). */
const LIBREOFFICE_PROFILE_IN_IMAGE = "/opt/signet/libreoffice-profile";

/** logicalId turns a route name into the CloudFormation id of its function (sign -> SignFunction). */
export function functionLogicalId(name: string): string {
  return `${name.replace(/(^|-)([a-z])/g, (_, __, letter: string) => letter.toUpperCase())}Function`;
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { version: string }).version;
}

/** accessLogFields are the API's access log line, one JSON object per request. */
const accessLogFields = {
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
};

/**
 * SignetStack deploys the API: one Lambda per route of functions/http/routes.ts behind a REST
 * API, the API-key authorizer, the key table, the SES sender, the signing-identity bucket,
 * LibreOffice for the converting functions (one container image; no layer mode), logs and alarms.
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
  readonly mailConfiguration: ConfigurationSet;

  constructor(scope: Construct, id: string, props: SignetStackProps) {
    super(scope, id, props);
    const version = packageVersion();
    const corsOrigin = props.corsOrigin ?? "*";
    // Before any work: a region without SES is refused, one without Budgets skips the budget (infra/regions.ts).
    const inRegion = checkRegion(this, { budget: props.budgetUsd !== undefined });
    const { table, bucket } = this.createData();
    this.mailConfiguration = this.createMailConfiguration();
    const mailIdentities = senderIdentities(this, props.senderEmail, {
      existing: props.existingSenderIdentity ?? false,
      configurationSet: this.mailConfiguration,
    });

    const names = this.createFunctions(props, version, corsOrigin);
    const office = this.createOffice(version, props.libreOfficeBaseImage);
    applyReservedConcurrency(this.functions, props.reservedConcurrency ?? {});

    const mail = sender(mailIdentities, props.senderEmail, { sandbox: props.sesSandbox ?? true, configurationSet: this.mailConfiguration });
    this.grantByPlan(names, { table, bucket, mail }, props);
    const signingKeys = this.bindSigning(props, bucket, version);
    this.bindSettings(props);

    // Large documents go to S3 first (infra/uploads.ts).
    const fns = this.functions as Record<string, LambdaFunction>;
    const uploadsBucket = addUploads(this, fns, corsOrigin);
    // The office function's S3 endpoint admits the staged documents and nothing else.
    office.allowObjects(uploadsBucket, officeObjects);
    // The office callers may invoke their office function (the routes the office function, the job
    // worker the jobs' one) and stage documents under office/ of the uploads bucket; the office
    // functions themselves get presigned URLs, never a permission.
    for (const name of officeCallers) {
      const target = fns[planOf(name).office!]!;
      bind(fns[name]!, setting("SIGNET_OFFICE_FUNCTION", target.functionName), officeStaging(uploadsBucket));
      office.grantInvoke(fns[name]!, target);
    }
    // Webhooks: the secret routes read and rotate the WHSEC# items; retries run off the request path
    // (infra/webhook-sweeper.ts): every minute, the due queue in the key table.
    for (const name of ["webhooks-secret", "webhooks-secret-rotate"] as const) bind(fns[name]!, webhookSecrets(table));
    this.functions["webhook-sweeper"] = new WebhookSweeper(this, "WebhookSweeper", {
      fn: this.createFunction("webhook-sweeper", version, []),
      table,
      uploads: uploadsBucket,
    }).fn;
    // Idempotency-Key: records in the key table, large answers under idempotency/ of the uploads bucket.
    for (const route of routes) if (route.idempotent) bind(fns[route.name]!, idempotencyStore(table, uploadsBucket));
    this.bindJobs(table, uploadsBucket);

    this.api = this.createApi(props, corsOrigin);
    // The certificate Signet issues names the API's own CRL (B-LT/B-LTA; built from the API id, not its stage, to avoid a cycle).
    if (signingKeys)
      for (const name of ["sign", "jobs-worker"])
        bind(fns[name]!, setting("SIGNET_PUBLIC_URL", `https://${this.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}/prod`));

    // Alarms nobody hears are noise on the bill: only with an address to mail them to.
    if (props.alarmEmail) {
      const alarmParts = { api: this.api, functions: this.functions, mailConfiguration: this.mailConfiguration, logicalId: functionLogicalId };
      createAlarms(this, { email: props.alarmEmail, set: props.alarms ?? "small", ...alarmParts });
    }
    if (inRegion.budget) this.createBudget(props.budgetUsd!, props.alarmEmail!);

    // cdk-nag AwsSolutions findings kept on purpose, each with its reason (test/infra/nag.test.ts).
    acknowledgeNagFindings({ functions: this.functions, api: this.api, uploadsBucket, office, sesSandbox: props.sesSandbox ?? true });

    new CfnOutput(this, "ApiUrl", { value: this.api.url, description: "Base URL of the Signet API" });
    new CfnOutput(this, "TableName", { value: table.tableName, description: "DynamoDB table of API keys and codes (retained)" });
    new CfnOutput(this, "IdentityBucketName", { value: bucket.bucketName, description: "S3 bucket of the signing identity (retained)" });
    new CfnOutput(this, "OfficeFunctionName", { value: office.fn.functionName, description: "The office function (SIGNET_OFFICE_FUNCTION; sam local invoke)" });
  }

  /** createData makes what is kept on destroy: the key table, the identity bucket and its access logs. */
  private createData(): { table: Table; bucket: Bucket } {
    // Data: keys and codes (schema in functions/adapters/dynamodb-key-store.ts), retained on destroy.
    const table = new Table(this, "KeyTable", {
      partitionKey: { name: "pk", type: AttributeType.STRING },
      sortKey: { name: "sk", type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: "expiresAt",
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });

    // Who read or wrote the signing key, and when: S3 server access logs of the identity bucket,
    // kept a year in a bucket of their own (retained on destroy, like the key itself).
    const identityAccessLogs = new Bucket(this, "IdentityAccessLogs", {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });

    // The signing identity (P12/PEM); created by the service on first use, replaceable by an operator.
    const bucket = new Bucket(this, "IdentityBucket", {
      serverAccessLogsBucket: identityAccessLogs,
      serverAccessLogsPrefix: "identity-bucket/",
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      versioned: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
    });
    return { table, bucket };
  }

  /**
   * createMailConfiguration makes the one configuration set every mail goes through (the identity's
   * default): reputation metrics (bounce and complaint rates) for the alarms, and the account
   * suppression list for addresses that bounced or complained, so a typo'd address is not mailed again.
   */
  private createMailConfiguration(): ConfigurationSet {
    return new ConfigurationSet(this, "MailConfiguration", {
      reputationMetrics: true,
      sendingEnabled: true,
      suppressionReasons: SuppressionReasons.BOUNCES_AND_COMPLAINTS,
    });
  }

  /**
   * createFunctions makes one function per route, plus the authorizer and the fallback, all zips;
   * the office function, the one place LibreOffice runs, is made by createOffice (infra/office-worker.ts).
   */
  private createFunctions(props: SignetStackProps, version: string, corsOrigin: string): FunctionName[] {
    // The job worker is made here too: its plan (uploads, office, signing) is granted like the routes'.
    const names: FunctionName[] = [...routes.map((route) => route.name), "authorizer", "fallback", "jobs-worker"];
    const extraFonts: RuntimeFile[] = props.extraFontsDir
      ? [{ from: relative(repoRoot, resolve(repoRoot, props.extraFontsDir)), to: EXTRA_FONTS_IN_BUNDLE }]
      : [];
    for (const name of names) {
      const fn = this.createFunction(name, version, name === "sign" || name === "jobs-worker" ? extraFonts : []);
      // SIGNET_TABLE and SIGNET_SENDER_EMAIL come with the bindings, only where a function uses
      // them: config.ts reads each group of settings on first use (test/infra/function-env.test.ts).
      // The CORS middleware of every function (functions/http/pipeline.ts) answers with this origin.
      bind(fn, setting("SIGNET_CORS_ORIGIN", corsOrigin));
      this.functions[name] = fn;
    }
    return names;
  }

  /**
   * grantByPlan gives each function the calls its adapters make, nothing else: the static part from
   * infra/function-plans.ts (key table actions, mail, identity bucket) and the per-key rate limit.
   */
  private grantByPlan(names: FunctionName[], data: { table: Table; bucket: Bucket; mail: Binding }, props: SignetStackProps): void {
    const fns = this.functions as Record<string, LambdaFunction>;
    const authorised = new Set<string>(routes.filter((route) => route.auth).map((route) => route.name));
    for (const name of names) {
      const plan = planOf(name);
      if (plan.keyTable) bind(fns[name]!, keyTable(data.table, keyTableActions[plan.keyTable]));
      // The per-key request limit (functions/http/pipeline.ts) counts in the table from every
      // authorised function (listing and revoking already may UpdateItem).
      if (authorised.has(name) && plan.keyTable === undefined) bind(fns[name]!, keyTable(data.table, keyTableActions.countRate));
      if (authorised.has(name) && props.keyRatePerMinute) bind(fns[name]!, setting("SIGNET_KEY_RATE_LIMIT", String(props.keyRatePerMinute)));
      if (plan.mail) bind(fns[name]!, data.mail);
      // Only sign touches the key; verify (which parses untrusted PDFs) and verify-key read the
      // certificate chain sign publishes, and nothing else of the bucket.
      if (plan.identity) bind(fns[name]!, identityBucket(data.bucket, plan.identity));
    }
  }

  /** bindSigning gives sign its key: by default two KMS keys only sign may sign with (infra/signing-keys.ts), or the P12's password parameter. */
  private bindSigning(props: SignetStackProps, bucket: Bucket, version: string): SigningKeys | undefined {
    const fns = this.functions as Record<string, LambdaFunction>;
    if (props.identityP12PasswordParameter) {
      const password = secureParameter(this, "SIGNET_IDENTITY_P12_PASSWORD_PARAMETER", props.identityP12PasswordParameter);
      for (const name of ["sign", "jobs-worker"]) bind(fns[name]!, password);
    }
    if ((props.signingKey ?? "kms") !== "kms") return undefined;
    const keys = new SigningKeys(this, "SigningKeys");
    bind(fns.sign!, keys.signer());
    bind(fns["jobs-worker"]!, keys.signer());
    // The CRL is issued off the request path (infra/crl-issuer.ts); verify-crl only serves the kept one.
    const issuer = new CrlIssuer(this, "CrlIssuer", { fn: this.createFunction("crl-issuer", version, []), keys, bucket });
    this.functions["crl-issuer"] = issuer.fn;
    bind(fns["verify-crl"]!, keys.crlReader());
    keys.onlySigners(fns.sign!.role!, issuer.fn.role!, fns["jobs-worker"]!.role!);
    bind(fns["verify-key"]!, keys.location());
    new CfnOutput(this, "SigningKeyArn", { value: keys.signingKey.keyArn, description: "KMS key that signs documents (retained)" });
    return keys;
  }

  /**
   * bindJobs wires Prefer: respond-async (infra/jobs.ts): the queue and the worker; the async routes
   * keep jobs and queue them, verify checks the key a job belongs to, the job routes read them.
   */
  private bindJobs(table: Table, uploads: Bucket): void {
    const fns = this.functions as Record<string, LambdaFunction>;
    const jobs = new JobWorker(this, "Jobs", { fn: fns["jobs-worker"]!, table, uploads });
    for (const route of routes) if (route.async) bind(fns[route.name]!, jobStore(table, uploads), jobs.submitter());
    // verify has no authorizer: a job's key is checked by the function itself (functions/http/jobs.ts).
    bind(fns.verify!, keyTable(table, keyTableActions.authorize));
    for (const name of ["job", "job-redeliver"]) bind(fns[name]!, jobStore(table, uploads));
  }

  /** bindSettings passes the deployment options to the functions that read them. */
  private bindSettings(props: SignetStackProps): void {
    const fns = this.functions as Record<string, LambdaFunction>;
    if (props.registerAllow) bind(fns["auth-register"]!, setting("SIGNET_REGISTER_ALLOW", props.registerAllow));
    // The job worker runs sign's, annotate's and timestamp's jobs: it reads their settings too.
    if (props.tsaUrl) for (const name of ["sign", "timestamp", "jobs-worker"]) bind(fns[name]!, setting("SIGNET_TSA_URL", props.tsaUrl));
    // The audit page fonts travel beside the bundle (the plan's runtimeFiles); the task root is /var/task.
    for (const name of ["sign", "annotate", "jobs-worker", "stamp"]) bind(fns[name]!, setting("SIGNET_FONTS_DIR", `${lambdaTaskRoot}/assets/fonts`));
    if (props.extraFontsDir)
      for (const name of ["sign", "jobs-worker"]) bind(fns[name]!, setting("SIGNET_EXTRA_FONTS_DIR", `${lambdaTaskRoot}/${EXTRA_FONTS_IN_BUNDLE}`));
  }

  /** prepareImage bundles the office function into the LibreOffice container image's build folder. */
  private prepareImage(): string {
    const dir = join(Stage.of(this)?.outdir ?? join(repoRoot, "cdk.out"), ".signet-image");
    bundleForImage(["office"], join(dir, "app"), functionPlans.office.runtimeFiles);
    for (const entry of ["Dockerfile", "fonts", "warmup"]) {
      const source = join(repoRoot, "layers", "libreoffice", entry);
      if (!existsSync(source)) throw new Error(`layers/libreoffice/${entry} is missing`);
      cpSync(source, join(dir, entry), { recursive: true });
    }
    // The settings the image's profile template is made with (the Dockerfile's warm-up step).
    writeFileSync(join(dir, "warmup", "registrymodifications.xcu"), registryModificationsText());
    return dir;
  }

  /** logGroupFor is a function's own log group, kept a month. */
  private logGroupFor(id: string): LogGroup {
    return new LogGroup(this, `${id}Logs`, { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
  }

  /** createFunction makes a route's (or the authorizer's, the fallback's) zip function from its plan. */
  private createFunction(name: FunctionName, version: string, extraFiles: readonly RuntimeFile[]): LambdaFunction {
    const entry = join(repoRoot, "functions", `${name}.ts`);
    if (!existsSync(entry)) throw new Error(`Route ${name} has no entry file functions/${name}.ts`);
    const plan = planOf(name);
    if (plan.package !== "zip") throw new Error(`${name} is planned as ${plan.package}; only the office function runs from the image`);
    const id = functionLogicalId(name);
    const fn = new NodejsFunction(this, id, {
      description: `Signet ${name}`,
      architecture: Architecture.X86_64,
      memorySize: plan.memoryMb,
      timeout: Duration.seconds(plan.timeoutSeconds),
      logGroup: this.logGroupFor(id),
      environment: { SIGNET_VERSION: version, POWERTOOLS_SERVICE_NAME: "signet" },
      entry,
      handler: "handler",
      runtime: Runtime.NODEJS_22_X,
      projectRoot: repoRoot,
      depsLockFilePath: join(repoRoot, "package-lock.json"),
      bundling: nodejsBundling([...(plan.runtimeFiles ?? []), ...extraFiles]),
    });
    // Every bundle ships a linked source map (esbuildSettings): make Node use it in stack traces.
    fn.addEnvironment("NODE_OPTIONS", "--enable-source-maps");
    (fn.node.defaultChild as CfnFunction).overrideLogicalId(id);
    return fn;
  }

  /**
   * createOffice makes the office functions (functions/office.ts) from the LibreOffice container
   * image, in their VPC without egress and with roles for logs and network interfaces only
   * (infra/office-worker.ts): the routes' (83 s) and the job worker's (874 s), one image.
   */
  private createOffice(version: string, baseRef: string): OfficeWorker {
    const code = DockerImageCode.fromImageAsset(this.prepareImage(), {
      cmd: ["office.handler"],
      // A build argument is part of the asset hash: a new digest is a new image.
      buildArgs: { BASE_REF: baseRef },
      platform: Platform.LINUX_AMD64,
    });
    const propsFor = (name: OfficeFunctionName) => {
      const plan = functionPlans[name];
      return {
        code,
        memoryMb: plan.memoryMb,
        timeout: Duration.seconds(plan.timeoutSeconds),
        ephemeralStorageMb: 1024,
        logGroup: this.logGroupFor(functionLogicalId(name)),
        environment: {
          SIGNET_VERSION: version,
          POWERTOOLS_SERVICE_NAME: "signet",
          NODE_OPTIONS: "--enable-source-maps",
          SIGNET_SOFFICE: sofficeInImage,
          // LibreOffice stops early enough for the function to answer within its time-out; a job's
          // invoke may ask for less, never more (functions/timeouts.ts).
          SIGNET_CONVERSION_TIMEOUT_MS: String(officeConversionLimitMs(plan.timeoutSeconds)),
          // A container serves one request at a time: one LibreOffice is enough.
          SIGNET_CONVERSION_CONCURRENCY: "1",
          // Callers' documents never meet a LibreOffice an earlier job had: a fresh one per job (docs/aws.md).
          SIGNET_LIBREOFFICE_RECYCLE: "true",
          // The profile made at image build time (Dockerfile), copied into /tmp per instance.
          SIGNET_LIBREOFFICE_PROFILE: LIBREOFFICE_PROFILE_IN_IMAGE,
        },
      };
    };
    const office = new OfficeWorker(this, "Office", propsFor("office"));
    // The jobs' office function: the same image, network and rights, with the job's budget (functions/timeouts.ts).
    const jobsFn = office.addFunction("Jobs", propsFor("office-jobs"));
    (office.fn.node.defaultChild as CfnFunction).overrideLogicalId(functionLogicalId("office"));
    (jobsFn.node.defaultChild as CfnFunction).overrideLogicalId(functionLogicalId("office-jobs"));
    this.functions.office = office.fn;
    this.functions["office-jobs"] = jobsFn;
    return office;
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
      // Gzip buffered answers above 1 KiB for clients that accept it: /docs is 3.6 MB of HTML and
      // script, about 1 MB compressed. Streamed answers (sign, annotate, convert) are never
      // compressed: API Gateway does not apply content encoding in STREAM transfer mode.
      minCompressionSize: Size.kibibytes(1),
      // Access logs need API Gateway's account-level CloudWatch role (kept on destroy: it is shared).
      cloudWatchRole: true,
      deployOptions: {
        stageName: "prod",
        throttlingRateLimit: throttle.rate,
        throttlingBurstLimit: throttle.burst,
        loggingLevel: MethodLoggingLevel.OFF,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        accessLogFormat: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
        // Codes by e-mail are the one thing worth abusing: register gets a tighter limit, on every
        // method of its resource (gateway.ts).
        methodOptions: registerRoute ? tightThrottle(registerRoute, { throttlingRateLimit: 5, throttlingBurstLimit: 10 }) : {},
      },
      // No defaultCorsPreflightOptions: they add MOCK OPTIONS integrations without contentHandling,
      // and with binaryMediaTypes */* API Gateway answers those with 500 "Unable to transform
      // request". OPTIONS falls through to the ANY fallback below (no authorizer), whose CORS
      // middleware (functions/http/pipeline.ts) answers the preflight exactly as the local server does.
    });

    const authorizer = new TokenAuthorizer(this, "KeyAuthorizer", {
      handler: fns.authorizer!,
      identitySource: IdentitySource.header("Authorization"),
      // Malformed headers are answered 401 by the gateway without invoking (or paying for) the authorizer.
      validationRegex: authorizationHeaderPattern,
      // Bounds how long a revoked key keeps working (DELETE /v1/keys/{id}): a cached Allow lives this long.
      resultsCacheTtl: Duration.seconds(authorizerCacheSeconds),
    });

    const known = this.addRoutes(api, authorizer);

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

  /** addRoutes adds a method per route of routes.ts (behind the authorizer where the route says so); the resources it made or passed. */
  private addRoutes(api: RestApi, authorizer: TokenAuthorizer): Set<IResource> {
    const fns = this.functions as Record<string, LambdaFunction>;
    const known = new Set<IResource>([api.root]);
    for (const route of routes) {
      const resource = api.root.resourceForPath(route.path);
      for (let at: IResource | undefined = resource; at; at = at.parentResource) known.add(at);
      // Streaming routes: InvokeWithResponseStream, answers beyond 6 MB and 29 s.
      const streamed = route.streaming === true ? { responseTransferMode: ResponseTransferMode.STREAM } : {};
      const timeout = Duration.seconds(route.streaming === true ? streamingTimeoutSeconds : integrationTimeoutSeconds);
      const integration = new LambdaIntegration(fns[route.name]!, { allowTestInvoke: false, timeout, ...streamed });
      const options = route.auth ? { authorizer, authorizationType: AuthorizationType.CUSTOM } : {};
      // HEAD is GET without the body (monitors probe /v1/health with it) on GET routes that change
      // nothing; on register, verify and the revocation link it falls to the fallback's 405.
      for (const method of routeMethods(route)) resource.addMethod(method, integration, options);
    }
    return known;
  }

  /**
   * createBudget adds a monthly cost budget for the whole account (AWS Budgets sees the account's
   * bill, not one stack's): mail at 80 % of actual spend and when the forecast passes 100 %.
   */
  private createBudget(limitUsd: number, email: string): void {
    const subscribers = [{ subscriptionType: "EMAIL", address: email }];
    new CfnBudget(this, "CostBudget", {
      budget: {
        budgetName: `${this.stackName}-monthly-cost`,
        budgetType: "COST",
        timeUnit: "MONTHLY",
        budgetLimit: { amount: limitUsd, unit: "USD" },
      },
      notificationsWithSubscribers: [
        { notification: { notificationType: "ACTUAL", comparisonOperator: "GREATER_THAN", threshold: 80, thresholdType: "PERCENTAGE" }, subscribers },
        { notification: { notificationType: "FORECASTED", comparisonOperator: "GREATER_THAN", threshold: 100, thresholdType: "PERCENTAGE" }, subscribers },
      ],
    });
  }
}
