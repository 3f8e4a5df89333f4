import { CfnOutput, Duration, RemovalPolicy } from "aws-cdk-lib";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { Function as LambdaFunction } from "aws-cdk-lib/aws-lambda";
import { BlockPublicAccess, Bucket, BucketEncryption, HttpMethods, ObjectOwnership, type IBucket } from "aws-cdk-lib/aws-s3";
import type { Construct } from "constructs";
import { bind, type Binding } from "./bind.ts";

/** uploadObjects is the folder functions/domain/shared/upload.ts puts every upload under (uploads/<owner tag>/<reference>). */
const uploadObjects = "uploads/*";

/** uploadFunctions: who grants uploads (presigns the POST), who reads and deletes them. */
export const uploadFunctions = {
  grant: ["uploads"],
  consume: ["sign", "timestamp", "annotate", "annotate-fields", "verify", "convert"],
} as const;

/**
 * uploadsBucket binds the uploads bucket (SIGNET_UPLOADS_BUCKET). "grant": s3:PutObject on the
 * upload folder, because S3 accepts a presigned POST only if its signer may put the object;
 * "consume": GetObject and DeleteObject there, and ListBucket so a missing upload reads as 404
 * NoSuchKey rather than 403.
 */
function uploadsBucket(bucket: IBucket, access: "grant" | "consume"): Binding {
  const statements =
    access === "grant"
      ? [new PolicyStatement({ actions: ["s3:PutObject"], resources: [bucket.arnForObjects(uploadObjects)] })]
      : [
          new PolicyStatement({ actions: ["s3:GetObject", "s3:DeleteObject"], resources: [bucket.arnForObjects(uploadObjects)] }),
          new PolicyStatement({ actions: ["s3:ListBucket"], resources: [bucket.bucketArn] }),
        ];
  return { env: { SIGNET_UPLOADS_BUCKET: bucket.bucketName }, statements };
}

/**
 * addUploads creates the bucket large documents are uploaded to (issue 15): private, encrypted,
 * TLS-only, objects expire after one day (functions delete what they used at once), CORS for
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
    removalPolicy: RemovalPolicy.RETAIN,
  });
  for (const name of uploadFunctions.grant) bind(functions[name]!, uploadsBucket(bucket, "grant"));
  for (const name of uploadFunctions.consume) bind(functions[name]!, uploadsBucket(bucket, "consume"));
  new CfnOutput(scope, "UploadsBucketName", { value: bucket.bucketName, description: "S3 bucket of uploaded documents (objects expire after a day)" });
  return bucket;
}
