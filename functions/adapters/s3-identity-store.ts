import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { config } from "#config";
import { SignetError } from "#domain/errors.ts";
import {
  IdentityFormatError,
  generateIdentity,
  identityToPem,
  parseP12Identity,
  parsePemIdentity,
  type SigningIdentity,
  type SigningIdentityStore,
} from "#domain/signing-identity.ts";

/** identityKeys are the object keys an operator may put in the identity bucket. */
export const identityKeys = { p12: "identity.p12", pem: "identity.pem" } as const;

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
 * createS3IdentityStore loads the signing identity from a private bucket: identity.p12 (password
 * from SIGNET_IDENTITY_P12_PASSWORD) wins over identity.pem (private key + certificate chain in
 * one PEM). When neither exists, a self-signed identity is generated and stored with a
 * put-if-absent (If-None-Match: *), so concurrent cold starts settle on one key.
 */
export function createS3IdentityStore(options: { bucket: string; p12Password: string; client?: S3Client }): SigningIdentityStore {
  const client = options.client ?? s3;

  async function read(): Promise<SigningIdentity | undefined> {
    const p12 = await getObject(client, options.bucket, identityKeys.p12);
    try {
      if (p12) return await parseP12Identity(p12, options.p12Password);
      const pem = await getObject(client, options.bucket, identityKeys.pem);
      return pem ? parsePemIdentity(pem.toString("utf8")) : undefined;
    } catch (error) {
      // A bucket outage is already a SignetError with its cause: pass it on unchanged.
      if (error instanceof SignetError) throw error;
      const reason = error instanceof IdentityFormatError ? error.message : "unreadable";
      throw new SignetError("SERVICE_UNAVAILABLE", `The service's signing identity cannot be used: ${reason}.`, {
        cause: new Error(`signing identity in bucket ${options.bucket}: ${reason}`, { cause: error }),
      });
    }
  }

  let loading: Promise<SigningIdentity> | undefined;
  async function loadOnce(): Promise<SigningIdentity> {
    const existing = await read();
    if (existing) return existing;
    const identity = await generateIdentity();
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: options.bucket,
          Key: identityKeys.pem,
          Body: identityToPem(identity),
          IfNoneMatch: "*",
          ContentType: "application/x-pem-file",
        }),
      );
      return identity;
    } catch (error) {
      const status = (error as S3ServiceException).$metadata?.httpStatusCode;
      if (status === 412 || status === 409) return (await read())!;
      throw new SignetError("SERVICE_UNAVAILABLE", "The signing identity could not be stored in its bucket; retry later.", { cause: error });
    }
  }

  return {
    load() {
      loading ??= loadOnce().catch((error: unknown) => {
        loading = undefined;
        throw error;
      });
      return loading;
    },
  };
}
