import { DeleteObjectCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { createPresignedPost } from "@aws-sdk/s3-presigned-post";
import { SignetError } from "#domain/shared/errors.ts";
import type { UploadStore } from "#domain/shared/upload.ts";

/**
 * s3ClientFor is the S3 client of this container: the stand-in's endpoint (path style) locally,
 * AWS otherwise. Checksums only where an operation requires one: by default this SDK puts the
 * CRC32 of an empty body (x-amz-checksum-crc32=AAAAAA==) into every presigned PUT URL, which a
 * checking S3 refuses for the real body (400 BadDigest), and asks for response checksums on
 * presigned GETs. Direct PUTs stay integrity-checked by their signed x-amz-content-sha256.
 */
export function s3ClientFor(options: {
  region: string;
  endpoint?: string | undefined;
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}): S3Client {
  const { region, endpoint, credentials } = options;
  return new S3Client({
    region,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(credentials ? { credentials } : {}),
  });
}

function isMissing(error: unknown): boolean {
  return error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404);
}

/**
 * createS3UploadStore keeps uploads in a bucket. The presigned POST pins the exact key and a
 * content-length-range of 1..maxBytes, so S3 itself refuses anything larger or elsewhere.
 */
export function createS3UploadStore(options: { bucket: string | undefined; client: S3Client }): UploadStore {
  const { client } = options;
  const bucket = (): string => {
    if (!options.bucket)
      throw new SignetError("SERVICE_UNAVAILABLE", "Uploads are not configured on this deployment.", {
        cause: new Error("SIGNET_UPLOADS_BUCKET is unset"),
      });
    return options.bucket;
  };
  return {
    async presignPost({ key, maxBytes, expiresInSeconds }) {
      try {
        const post = await createPresignedPost(client as never, {
          Bucket: bucket(),
          Key: key,
          Conditions: [["content-length-range", 1, maxBytes]],
          Expires: expiresInSeconds,
        });
        return { url: post.url, fields: post.fields };
      } catch (error) {
        if (error instanceof SignetError) throw error;
        throw new SignetError("SERVICE_UNAVAILABLE", "An upload could not be prepared right now; retry in a moment.", { cause: error });
      }
    },
    async read(key, maxBytes) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: bucket(), Key: key }));
        if ((answer.ContentLength ?? 0) > maxBytes) {
          await answer.Body?.transformToWebStream().cancel();
          return "too-large";
        }
        return Buffer.from(await answer.Body!.transformToByteArray());
      } catch (error) {
        if (isMissing(error)) return undefined;
        if (error instanceof SignetError) throw error;
        throw new SignetError("SERVICE_UNAVAILABLE", "The upload cannot be read right now; retry in a moment.", { cause: error });
      }
    },
    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket(), Key: key }));
    },
    async write(key, bytes, contentType) {
      try {
        await client.send(new PutObjectCommand({ Bucket: bucket(), Key: key, Body: bytes, ContentType: contentType }));
      } catch (error) {
        if (error instanceof SignetError) throw error;
        throw new SignetError("SERVICE_UNAVAILABLE", "A document could not be stored as an upload right now; retry in a moment.", { cause: error });
      }
    },
  };
}
