import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { OfficeTransfer } from "#adapters/office-worker-converter.ts";
import { SignetError } from "#domain/shared/errors.ts";

function unavailable(what: string, cause: unknown): SignetError {
  return new SignetError("SERVICE_UNAVAILABLE", `A large document could not be ${what} for conversion right now; retry in a moment.`, {
    retryAfterSeconds: 5,
    cause,
  });
}

/**
 * createS3OfficeTransfer stages the office function's large inputs and outputs in a bucket (the
 * uploads bucket, under the office/ prefix the stack grants): this function puts, reads and
 * deletes them with its own role, and hands the office function presigned URLs for exactly one
 * GET or PUT of one key, so the office function's role needs no S3 permission.
 */
export function createS3OfficeTransfer(options: { client: S3Client; bucket: string }): OfficeTransfer {
  const { client, bucket } = options;
  return {
    async put(key, bytes) {
      try {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: bytes, ContentLength: bytes.length }));
      } catch (error) {
        throw unavailable("stored", error);
      }
    },
    async presign(key, method, expiresInSeconds) {
      const command = method === "GET" ? new GetObjectCommand({ Bucket: bucket, Key: key }) : new PutObjectCommand({ Bucket: bucket, Key: key });
      // Signing needs this function's credentials (a local signature, no request): without them, 503 rather than a bare 500.
      return getSignedUrl(client, command, { expiresIn: expiresInSeconds }).catch((error: unknown) => {
        throw unavailable("prepared", error);
      });
    },
    async read(key, maxBytes) {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key })).catch((error: unknown) => {
        throw unavailable("read back", error);
      });
      if ((answer.ContentLength ?? 0) > maxBytes) {
        await answer.Body?.transformToWebStream().cancel();
        throw new SignetError("PAYLOAD_TOO_LARGE", `The converted document is larger than ${Math.floor(maxBytes / 1024 / 1024)} MB.`);
      }
      return Buffer.from(await answer.Body!.transformToByteArray());
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
  };
}
