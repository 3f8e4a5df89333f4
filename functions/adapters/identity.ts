import { join } from "node:path";
import { config } from "#config";
import { createLocalIdentityStore } from "#adapters/local-identity-store.ts";
import { createS3CertificateStore, createS3IdentityStore } from "#adapters/s3-identity-store.ts";
import { readSecureParameter } from "#adapters/ssm-secure-parameter.ts";
import { publicIdentity, type CertificateStore } from "#domain/signing/identity-store.ts";
import type { SigningIdentityStore } from "#domain/signing/signing-identity.ts";

/**
 * identityStore is this container's signing identity source: the S3 bucket when
 * SIGNET_IDENTITY_BUCKET is set (AWS), else <data folder>/identity (local). Its load() caches
 * the identity for the life of the container. Only signing uses it. On AWS the P12 password, when
 * there is one, is read from its SecureString parameter on the first load, not from the environment.
 */
const parameter = config.identity.p12PasswordParameter;
export const identityStore: SigningIdentityStore = config.identity.bucket
  ? createS3IdentityStore({ bucket: config.identity.bucket, p12Password: parameter ? () => readSecureParameter(parameter) : config.identity.p12Password })
  : createLocalIdentityStore({ dir: join(config.identity.dataDir, "identity"), p12Password: config.identity.p12Password });

/**
 * certificateStore is the public half, for verify and verify-key: on AWS the chain the signing
 * function published (those functions may not read the key); locally the identity itself, minus the key.
 */
export const certificateStore: CertificateStore = config.identity.bucket
  ? createS3CertificateStore({ bucket: config.identity.bucket })
  : { load: async () => publicIdentity(await identityStore.load()) };
