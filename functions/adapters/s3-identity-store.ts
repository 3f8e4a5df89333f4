import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { config } from "#config";
import { SignetError } from "#domain/errors.ts";
import { createIdentityStore, identityFileNames, type IdentityFiles } from "#domain/identity-store.ts";
import type { SigningIdentityStore } from "#domain/signing-identity.ts";

/** identityKeys are the object keys an operator may put in the identity bucket. */
export const identityKeys = identityFileNames;

const s3 = new S3Client({ region: config.region });

async function getObject(client: S3Client, bucket: string, key: string): Promise<Buffer | undefined> {
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await answer.Body!.transformToByteArray());
  } catch (error) {
    if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) return undefined;
    throw new SignetError("SERVICE_UNAVAILABLE", "The signing identity bucket cannot be read; retry later.", { cause: error });
  }
}

/**
 * createS3IdentityStore keeps the signing identity in a private bucket. A generated identity is
 * stored with a put-if-absent (If-None-Match: *), so concurrent cold starts settle on one key.
 */
export function createS3IdentityStore(options: { bucket: string; p12Password: string; client?: S3Client }): SigningIdentityStore {
  const client = options.client ?? s3;
  const files: IdentityFiles = {
    read: (name) => getObject(client, options.bucket, name),
    async createIfAbsent(name, text) {
      try {
        await client.send(new PutObjectCommand({ Bucket: options.bucket, Key: name, Body: text, IfNoneMatch: "*", ContentType: "application/x-pem-file" }));
        return true;
      } catch (error) {
        const status = (error as S3ServiceException).$metadata?.httpStatusCode;
        if (status === 412 || status === 409) return false;
        throw new SignetError("SERVICE_UNAVAILABLE", "The signing identity could not be stored in its bucket; retry later.", { cause: error });
      }
    },
    describe: (name) => `s3://${options.bucket}/${name}`,
  };
  return createIdentityStore(files, options);
}
