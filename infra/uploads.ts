import { CfnOutput, Duration, RemovalPolicy } from "aws-cdk-lib";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership, type IBucket } from "aws-cdk-lib/aws-s3";
import type { Construct } from "constructs";
import { OFFICE_KEY_PREFIX } from "#adapters/office-worker-converter.ts";
import { bind, type Binding } from "./bind.ts";
import { functionPlans, planOf, type FunctionName } from "./function-plans.ts";

/** uploadObjects is the folder functions/domain/shared/upload.ts puts every upload under (uploads/<owner tag>/<reference>). */
const uploadObjects = "uploads/*";

/** officeObjects is the folder the office callers stage large documents in for the office function (functions/adapters/office-worker-converter.ts). */
export const officeObjects = `${OFFICE_KEY_PREFIX}*`;

/** UploadAccess is how a function uses the uploads folder (infra/function-plans.ts FunctionPlan.uploads). */
type UploadAccess = "grant" | "consume" | "produce";

const withAccess = (access: UploadAccess) => (Object.keys(functionPlans) as FunctionName[]).filter((name) => planOf(name).uploads === access);

/** uploadFunctions: who grants uploads (presigns the POST), who reads and deletes them, who also writes them (from infra/function-plans.ts). */
export const uploadFunctions = { grant: withAccess("grant"), consume: withAccess("consume"), produce: withAccess("produce") };

/** uploadActions are the object calls each access makes on uploads/*. */
const uploadActions: Record<UploadAccess, string[]> = {
  grant: ["s3:PutObject"],
  consume: ["s3:GetObject", "s3:DeleteObject"],
  produce: ["s3:GetObject", "s3:DeleteObject", "s3:PutObject"],
};

/**
 * uploadsBucket binds the uploads bucket (SIGNET_UPLOADS_BUCKET). "grant": s3:PutObject on the
 * upload folder, because S3 accepts a presigned POST only if its signer may put the object;
 * "consume": GetObject and DeleteObject there, and ListBucket so a missing upload reads as 404
 * NoSuchKey rather than 403; "produce" (split's output "uploads"): PutObject there besides.
 */
function uploadsBucket(bucket: IBucket, access: UploadAccess): Binding {
  const objects = new PolicyStatement({ actions: uploadActions[access], resources: [bucket.arnForObjects(uploadObjects)] });
  const statements = access === "grant" ? [objects] : [objects, new PolicyStatement({ actions: ["s3:ListBucket"], resources: [bucket.bucketArn] })];
  return { env: { SIGNET_UPLOADS_BUCKET: bucket.bucketName }, statements };
}

/**
 * officeStaging lets an office caller put, read and delete under office/ of the uploads bucket:
 * the objects it stages for the office function and the outputs the office function PUTs back
 * through URLs this caller presigned (S3 authorises a presigned request with its signer's rights).
 */
export function officeStaging(bucket: IBucket): Binding {
  return {
    env: { SIGNET_UPLOADS_BUCKET: bucket.bucketName },
    statements: [new PolicyStatement({ actions: ["s3:PutObject", "s3:GetObject", "s3:DeleteObject"], resources: [bucket.arnForObjects(officeObjects)] })],
  };
}

/**
 * addUploads creates the bucket large documents are uploaded to: private, encrypted,
 * TLS-only, objects expire after one day (functions delete what they used at once; the rule has no
 * prefix, so it covers the office function's staged documents under office/ too), CORS for
 * browsers posting the presigned form; and binds it to the functions that grant and consume uploads.
 */
export function addUploads(scope: Construct, functions: Record<string, LambdaFunction>, corsOrigin: string): Bucket {
  const bucket = new Bucket(scope, "UploadsBucket", {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    encryption: BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ id: "expire-uploads", expiration: Duration.days(1), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    cors: [{ allowedMethods: [HttpMethods.POST], allowedOrigins: [corsOrigin], allowedHeaders: ["*"], maxAge: 600 }],
    // Uploads are transient: on stack deletion the bucket stays and empties itself by the lifecycle rule.
    removalPolicy: RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE,
  });
  for (const name of uploadFunctions.grant) bind(functions[name]!, uploadsBucket(bucket, "grant"));
  for (const name of uploadFunctions.consume) bind(functions[name]!, uploadsBucket(bucket, "consume"));
  for (const name of uploadFunctions.produce) bind(functions[name]!, uploadsBucket(bucket, "produce"));
  new CfnOutput(scope, "UploadsBucketName", { value: bucket.bucketName, description: "S3 bucket of uploaded documents (objects expire after a day)" });
  return bucket;
}
