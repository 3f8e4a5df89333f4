import { GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client, S3ServiceException } from "@aws-sdk/client-s3";
import { SignetError } from "#domain/shared/errors.ts";
import { crlFileName, type CrlFile } from "#domain/signing/crl-keeper.ts";
import {
  certificateChainFileName,
  certificateChainPem,
  createIdentityStore,
  identityFileNames,
  parseCertificateChain,
  publicIdentity,
  type CertificateStore,
  type IdentityFiles,
} from "#domain/signing/identity-store.ts";
import { IdentityFormatError, type SigningIdentityStore } from "#domain/signing/signing-identity.ts";

/** identityKeys are the object keys an operator may put in the identity bucket, and the published chain. */
export const identityKeys = { ...identityFileNames, chain: certificateChainFileName } as const;

/**
 * awsNoRevocationHint: on AWS a generated identity's root key is not kept (no function signs
 * CRLs), so no revocation data can exist for its certificate and B-LT is refused up front.
 */
export const awsNoRevocationHint =
  "B-LT and B-LTA need revocation data for the signing certificate, and the identity Signet generated on AWS has none (no CA publishes a CRL or OCSP for it): put an identity.p12 or identity.pem from a CA that publishes revocation data into the identity bucket, or sign at B-T.";

/** identityClientFor is the S3 client of the identity bucket's region. */
export function identityClientFor(region: string): S3Client {
  return new S3Client({ region });
}

async function getObject(client: S3Client, bucket: string, key: string): Promise<Buffer | undefined> {
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await answer.Body!.transformToByteArray());
  } catch (error) {
    if (error instanceof NoSuchKey || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) return undefined;
    throw new SignetError("SERVICE_UNAVAILABLE", "The signing identity bucket cannot be read; retry later.", { cause: error });
  }
}

/** P12Password is the operator's identity.p12 password, or where to fetch it once (Parameter Store). */
export type P12Password = string | (() => Promise<string>);

/** s3IdentityFiles are the identity files in the private identity bucket; created with put-if-absent (If-None-Match: *). */
export function s3IdentityFiles(options: { bucket: string; client: S3Client }): IdentityFiles {
  const { client } = options;
  return {
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
}

/**
 * createS3IdentityStore keeps the signing identity in a private bucket (the signing function's
 * store: the only one that reads the key). A generated identity is stored with a put-if-absent
 * (If-None-Match: *), so concurrent cold starts settle on one key. Once loaded, the identity's
 * certificate chain is published as identity-chain.pem (rewritten when it differs, e.g. after an
 * operator replaced the identity) for the functions that may not read the key.
 */
export function createS3IdentityStore(options: { bucket: string; p12Password: P12Password; client: S3Client }): SigningIdentityStore {
  const { client } = options;
  const files = s3IdentityFiles({ bucket: options.bucket, client });

  async function publishChain(pem: string): Promise<void> {
    const published = await getObject(client, options.bucket, certificateChainFileName);
    if (published?.toString("utf8") === pem) return;
    try {
      await client.send(new PutObjectCommand({ Bucket: options.bucket, Key: certificateChainFileName, Body: pem, ContentType: "application/x-pem-file" }));
    } catch (error) {
      throw new SignetError("SERVICE_UNAVAILABLE", "The signing certificate could not be published in its bucket; retry later.", { cause: error });
    }
  }

  let inner: Promise<SigningIdentityStore> | undefined;
  let loading: ReturnType<SigningIdentityStore["load"]> | undefined;
  async function loadOnce() {
    inner ??= (async () => {
      const password = typeof options.p12Password === "string" ? options.p12Password : await options.p12Password();
      return createIdentityStore(files, { p12Password: password, noRevocationHint: awsNoRevocationHint });
    })();
    const identity = await (await inner).load();
    await publishChain(certificateChainPem(identity));
    return identity;
  }
  return {
    load() {
      loading ??= loadOnce().catch((error: unknown) => {
        loading = undefined;
        inner = undefined;
        throw error;
      });
      return loading;
    },
  };
}

/**
 * createS3CertificateStore reads the published certificate chain (identity-chain.pem) and nothing
 * else: what verify and verify-key need, without any access to the private key. Before the first
 * signature there is nothing to read: undefined, asked again on the next call.
 */
export function createS3CertificateStore(options: { bucket: string; client: S3Client }): CertificateStore {
  const { client } = options;
  let loading: ReturnType<CertificateStore["load"]> | undefined;
  async function loadOnce() {
    const bytes = await getObject(client, options.bucket, certificateChainFileName);
    if (!bytes) return undefined;
    try {
      return publicIdentity(parseCertificateChain(bytes.toString("utf8")));
    } catch (error) {
      const reason = error instanceof IdentityFormatError ? error.message : "unreadable";
      throw new SignetError("SERVICE_UNAVAILABLE", `The service's signing certificate cannot be used: ${reason}.`, {
        cause: new Error(`s3://${options.bucket}/${certificateChainFileName}: ${reason}`, { cause: error }),
      });
    }
  }
  return {
    load() {
      loading ??= loadOnce().then(
        (found) => {
          if (!found) loading = undefined;
          return found;
        },
        (error: unknown) => {
          loading = undefined;
          throw error;
        },
      );
      return loading;
    },
  };
}

/** s3CrlFile is the kept CRL in the identity bucket (identity-root.crl): read by verify-crl, written by the CRL issuer. */
export function s3CrlFile(options: { bucket: string; client: S3Client }): CrlFile {
  const { bucket, client } = options;
  return {
    read: () => getObject(client, bucket, crlFileName),
    async write(der) {
      try {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: crlFileName, Body: der, ContentType: "application/pkix-crl" }));
      } catch (error) {
        throw new SignetError("SERVICE_UNAVAILABLE", "The CRL could not be stored in the identity bucket; retry later.", { cause: error });
      }
    },
  };
}
