import { Stack } from "aws-cdk-lib";
import type { ITable } from "aws-cdk-lib/aws-dynamodb";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import type { IEmailIdentity } from "aws-cdk-lib/aws-ses";

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

/**
 * identityObjects are the objects functions/adapters/s3-identity-store.ts reads (identity.p12 wins
 * over identity.pem) and, when neither exists, writes (a generated identity.pem).
 */
export const identityObjects = { read: ["identity.p12", "identity.pem"], write: ["identity.pem"] } as const;

/**
 * identityBucket binds the signing-identity bucket (SIGNET_IDENTITY_BUCKET): GetObject on the two
 * identity objects, PutObject on identity.pem for "create on first use". ListBucket lets a missing
 * object answer 404 NoSuchKey instead of 403, so the store can tell "absent" from "forbidden".
 */
export function identityBucket(bucket: IBucket, access: "read" | "read-write"): Binding {
  const statements = [
    new PolicyStatement({ actions: ["s3:GetObject"], resources: identityObjects.read.map((key) => bucket.arnForObjects(key)) }),
    new PolicyStatement({ actions: ["s3:ListBucket"], resources: [bucket.bucketArn] }),
  ];
  if (access === "read-write") {
    statements.push(new PolicyStatement({ actions: ["s3:PutObject"], resources: identityObjects.write.map((key) => bucket.arnForObjects(key)) }));
  }
  return { env: { SIGNET_IDENTITY_BUCKET: bucket.bucketName }, statements };
}

/**
 * sender binds the SES sender (SIGNET_SENDER_EMAIL): ses:SendEmail from that identity only.
 * In the SES sandbox, SES also authorises against the recipient's (verified) identity; `sandbox`
 * widens the resource to the account's identities but keeps the From address pinned.
 */
export function sender(identity: IEmailIdentity, address: string, options: { sandbox?: boolean } = {}): Binding {
  const statements = [new PolicyStatement({ actions: ["ses:SendEmail"], resources: [identity.emailIdentityArn] })];
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
  return { env: { SIGNET_SENDER_EMAIL: address }, statements };
}

/** setting binds a plain environment variable that needs no permission. */
export function setting(name: string, value: string): Binding {
  return { env: { [name]: value }, statements: [] };
}
