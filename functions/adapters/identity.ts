import { join } from "node:path";
import { config } from "#config";
import { createLocalIdentityStore } from "#adapters/local-identity-store.ts";
import { createS3IdentityStore } from "#adapters/s3-identity-store.ts";
import type { SigningIdentityStore } from "#domain/signing-identity.ts";

/**
 * identityStore is this container's signing identity source: the S3 bucket when
 * SIGNET_IDENTITY_BUCKET is set (AWS), else <data folder>/identity (local). Its load() caches
 * the identity for the life of the container.
 */
export const identityStore: SigningIdentityStore = config.identity.bucket
  ? createS3IdentityStore({ bucket: config.identity.bucket, p12Password: config.identity.p12Password })
  : createLocalIdentityStore({ dir: join(config.identity.dataDir, "identity"), p12Password: config.identity.p12Password });
