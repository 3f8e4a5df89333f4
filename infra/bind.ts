import { Stack } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import type { IConfigurationSet, IEmailIdentity } from "aws-cdk-lib/aws-ses";
import type { IConstruct } from "constructs";

/**
 * Binding is what a function needs from one resource: the environment variables that tell the
 * adapter where it is (read by functions/config.ts) and the IAM statements for exactly the calls
 * the adapter makes.
 */
export interface Binding {
  env: Record<string, string>;
  statements: PolicyStatement[];
}

/**
 * bind gives a function a resource: sets its environment variables and grants its statements in
 * one step, so a function never knows a resource it may not use, nor may use one it does not know.
 */
export function bind(fn: LambdaFunction, ...bindings: Binding[]): void {
  for (const binding of bindings) {
    for (const [name, value] of Object.entries(binding.env)) fn.addEnvironment(name, value);
    for (const statement of binding.statements) fn.addToRolePolicy(statement);
  }
}

/** keyTableActions are the DynamoDB calls of functions/adapters/dynamodb-key-store.ts, per use. */
export const keyTableActions = {
  /** register and verify: codes, rate slots (Query by partition) and new keys, all single-item. */
  readWrite: ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
  /** the authorizer: look a key hash up, stamp lastUsedAt. */
  authorize: ["dynamodb:GetItem", "dynamodb:UpdateItem"],
  /** listing keys: the address's listing, then each key; UpdateItem for the per-key request count. */
  list: ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:UpdateItem"],
  /** every other authorised function: the per-key request count (one conditional ADD). */
  countRate: ["dynamodb:UpdateItem"],
  /** revoking keys (UpdateItem also serves the per-key request count): read the listing and keys, revoke in a transaction (update + deletes). */
  revoke: ["dynamodb:GetItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
} as const;

/** keyTable binds the API-key table (SIGNET_TABLE) with the given actions on the table itself (no indexes exist). */
export function keyTable(table: ITable, actions: readonly string[]): Binding {
  return {
    env: { SIGNET_TABLE: table.tableName },
    statements: [new PolicyStatement({ actions: [...actions], resources: [table.tableArn] })],
  };
}

/** WEBHOOK_ITEMS are the partition key prefixes of webhook deliveries, their due queue and the signing secrets (functions/adapters/dynamodb-webhook-store.ts). */
const WEBHOOK_ITEMS = ["WEBHOOK#*", "WEBHOOK-DUE", "WHSEC#*"];

/**
 * webhookTable binds the webhook sweeper to its items of the key table: the due queue (Query),
 * deliveries (read, conditional claim and update) and the secrets it signs with (read, made on
 * first use), limited by dynamodb:LeadingKeys so it never reads an API key or a code.
 */
export function webhookTable(table: ITable): Binding {
  return {
    env: { SIGNET_TABLE: table.tableName },
    statements: [
      new PolicyStatement({
        actions: ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
        resources: [table.tableArn],
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": WEBHOOK_ITEMS } },
      }),
    ],
  };
}

/**
 * webhookSecrets binds the webhook secret routes to the signing secrets beside the keys: read, and
 * a conditional put when one is made or rotated, WHSEC# items only (dynamodb:LeadingKeys).
 */
export function webhookSecrets(table: ITable): Binding {
  return {
    env: { SIGNET_TABLE: table.tableName },
    statements: [
      new PolicyStatement({
        actions: ["dynamodb:GetItem", "dynamodb:PutItem"],
        resources: [table.tableArn],
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["WHSEC#*"] } },
      }),
    ],
  };
}

/** IDEMPOTENCY_ITEMS is the partition key prefix of idempotency records in the key table (functions/adapters/dynamodb-idempotency-store.ts). */
const IDEMPOTENCY_ITEMS = "IDEM#*";

/** idempotencyAnswerObjects is the uploads bucket's folder of answers too large for a table item (the bucket's one-day rule expires them). */
const idempotencyAnswerObjects = "idempotency/*";

/**
 * idempotencyStore binds the records of Idempotency-Key (functions/adapters/dynamodb-idempotency-store.ts):
 * single-item reads and conditional writes on the key table, limited by dynamodb:LeadingKeys to the
 * IDEM# items (never an API key's), and put, read and delete under idempotency/ of the uploads bucket.
 */
export function idempotencyStore(table: ITable, uploads: IBucket): Binding {
  return recordStore(table, IDEMPOTENCY_ITEMS, uploads, idempotencyAnswerObjects);
}

/**
 * JOB_ITEMS are the partition keys of job records in the key table (functions/adapters/dynamodb-job-store.ts):
 * the jobs, and JOBX, the to-expire entries of jobs with a callbackUrl (their job.expired webhook).
 */
const JOB_ITEMS = ["JOB#*", "JOBX"];

/** jobObjects is the uploads bucket's folder of job requests and results (infra/jobs.ts expires it). */
export const jobObjects = "jobs/*";

/**
 * jobStore binds the job records (functions/adapters/dynamodb-job-store.ts): single-item reads and
 * conditional writes on the key table limited by dynamodb:LeadingKeys to the JOB# items, and put,
 * read and delete under jobs/ of the uploads bucket (the result GETs it presigns need GetObject).
 */
export function jobStore(table: ITable, uploads: IBucket): Binding {
  return recordStore(table, JOB_ITEMS, uploads, jobObjects);
}

/**
 * jobExpiry binds the webhook sweeper's expiry of jobs with a callbackUrl (job.expired): the job
 * store's reads and writes (jobStore) and a Query of the to-expire entries, JOBX only.
 */
export function jobExpiry(table: ITable, uploads: IBucket): Binding {
  const store = jobStore(table, uploads);
  return {
    env: store.env,
    statements: [
      ...store.statements,
      new PolicyStatement({
        actions: ["dynamodb:Query"],
        resources: [table.tableArn],
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["JOBX"] } },
      }),
    ],
  };
}

/**
 * recordStore binds a store of records in the key table with large parts in the uploads bucket:
 * single-item reads and conditional writes limited by dynamodb:LeadingKeys to `items` (never an
 * API key's), and put, read and delete under `objects` of the uploads bucket.
 */
function recordStore(table: ITable, items: string | string[], uploads: IBucket, objects: string): Binding {
  return {
    env: { SIGNET_TABLE: table.tableName, SIGNET_UPLOADS_BUCKET: uploads.bucketName },
    statements: [
      new PolicyStatement({
        actions: ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem"],
        resources: [table.tableArn],
        conditions: { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [items].flat() } },
      }),
      new PolicyStatement({ actions: ["s3:PutObject", "s3:GetObject", "s3:DeleteObject"], resources: [uploads.arnForObjects(objects)] }),
    ],
  };
}

/**
 * identityObjects are the objects of functions/adapters/s3-identity-store.ts, per side. Signing
 * reads the key (identity.p12 wins over identity.pem), writes a generated identity.pem when
 * neither exists, and publishes the public chain identity-chain.pem. The certificate side
 * (verify, verify-key, verify-crl) reads identity-chain.pem and the kept CRL identity-root.crl
 * only: it never holds the key. The CRL issuer reads the chain and keeps the CRL (sign too, for B-LT).
 */
export const identityObjects = {
  signing: {
    read: ["identity.p12", "identity.pem", "identity-chain.pem", "identity-root.crl"],
    write: ["identity.pem", "identity-chain.pem", "identity-root.crl"],
  },
  certificate: { read: ["identity-chain.pem", "identity-root.crl"], write: [] },
  crlIssuer: { read: ["identity-chain.pem", "identity-root.crl"], write: ["identity-root.crl"] },
} as const;

/**
 * identityBucket binds the signing-identity bucket (SIGNET_IDENTITY_BUCKET): GetObject and
 * PutObject on exactly the objects of that side. ListBucket lets a missing object answer 404
 * NoSuchKey instead of 403, so the store can tell "absent" from "forbidden" (it shows names only).
 */
export function identityBucket(bucket: IBucket, side: keyof typeof identityObjects): Binding {
  const objects = identityObjects[side];
  const statements = [
    new PolicyStatement({ actions: ["s3:GetObject"], resources: objects.read.map((key) => bucket.arnForObjects(key)) }),
    new PolicyStatement({ actions: ["s3:ListBucket"], resources: [bucket.bucketArn] }),
  ];
  if (objects.write.length > 0) {
    statements.push(new PolicyStatement({ actions: ["s3:PutObject"], resources: objects.write.map((key) => bucket.arnForObjects(key)) }));
  }
  return { env: { SIGNET_IDENTITY_BUCKET: bucket.bucketName }, statements };
}

/**
 * sender binds the SES sender (SIGNET_SENDER_EMAIL): ses:SendEmail from its identities only (the
 * address's, and its domain's when the identity already existed: infra/sender-identity.ts).
 * With a configuration set, also ses:SendEmail on that set. In the SES sandbox, SES also authorises against the recipient's (verified) identity; `sandbox`
 * widens the resource to the account's identities but keeps the From address pinned.
 */
export function sender(identities: IEmailIdentity[], address: string, options: { sandbox?: boolean; configurationSet?: IConfigurationSet } = {}): Binding {
  const identity = identities[0]!;
  const statements = [new PolicyStatement({ actions: ["ses:SendEmail"], resources: identities.map((each) => each.emailIdentityArn) })];
  const env: Record<string, string> = { SIGNET_SENDER_EMAIL: address };
  if (options.configurationSet) {
    // SES authorises a send against the configuration set it goes through too; the mailer names
    // the set on every send (SIGNET_SES_CONFIGURATION_SET), so it applies to an existing identity as well.
    const stack = Stack.of(identity);
    const setArn = stack.formatArn({ service: "ses", resource: "configuration-set", resourceName: options.configurationSet.configurationSetName });
    statements.push(new PolicyStatement({ actions: ["ses:SendEmail"], resources: [setArn] }));
    env.SIGNET_SES_CONFIGURATION_SET = options.configurationSet.configurationSetName;
  }
  if (options.sandbox) {
    const stack = Stack.of(identity);
    statements.push(
      new PolicyStatement({
        actions: ["ses:SendEmail"],
        resources: [stack.formatArn({ service: "ses", resource: "identity", resourceName: "*" })],
        conditions: { StringEquals: { "ses:FromAddress": address } },
      }),
    );
  }
  return { env, statements };
}

/**
 * secureParameter binds an SSM Parameter Store SecureString by name (functions/adapters/
 * ssm-secure-parameter.ts): the variable holds the name, never the value, and the function may
 * ssm:GetParameter that one parameter. The default aws/ssm KMS key lets any principal of the
 * account decrypt through SSM, so no kms statement is needed (a customer key would need one).
 */
export function secureParameter(scope: IConstruct, variable: string, name: string): Binding {
  const arn = Stack.of(scope).formatArn({ service: "ssm", resource: "parameter", resourceName: name.replace(/^\//, "") });
  return { env: { [variable]: name }, statements: [new PolicyStatement({ actions: ["ssm:GetParameter"], resources: [arn] })] };
}

/** setting binds a plain environment variable that needs no permission. */
export function setting(name: string, value: string): Binding {
  return { env: { [name]: value }, statements: [] };
}
