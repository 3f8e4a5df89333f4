/**
 * Wiring of signing and verifying (sign, verify, verify-key, the local bootstrap): the signing
 * identity (S3 on AWS, the data folder locally), the public certificate, the trust anchors, the
 * fonts, the timestamp authority and the limits from config.
 */
import { join } from "node:path";
import { config } from "#config";
import { fontFiles } from "#adapters/bundled-fonts.ts";
import { createHttpTimestamper } from "#adapters/http-timestamper.ts";
import { createLocalIdentityStore } from "#adapters/local-identity-store.ts";
import { revocationFetcher } from "#adapters/revocation-fetcher.ts";
import { createS3CertificateStore, createS3IdentityStore } from "#adapters/s3-identity-store.ts";
import { safeFetcher } from "#adapters/safe-fetcher.ts";
import { readSecureParameter } from "#adapters/ssm-secure-parameter.ts";
import { createTrustStore } from "#adapters/trust-anchors.ts";
import { publicIdentity, type CertificateStore } from "#domain/signing/identity-store.ts";
import type { SignDependencies } from "#domain/signing/sign-document.ts";
import type { SigningIdentityStore } from "#domain/signing/signing-identity.ts";
import type { TimestampDependencies } from "#domain/signing/timestamp-document.ts";
import type { VerifyDependencies } from "#domain/signing/verify-document.ts";
import { converter } from "#wiring/conversion.ts";

let identities: SigningIdentityStore | undefined;
let certificates: CertificateStore | undefined;

/**
 * identityStore is this container's signing identity source: the S3 bucket when
 * SIGNET_IDENTITY_BUCKET is set (AWS), else <data folder>/identity (local). Its load() caches
 * the identity for the life of the container. Only signing uses it. On AWS the P12 password, when
 * there is one, is read from its SecureString parameter on the first load, not from the environment.
 */
export function identityStore(): SigningIdentityStore {
  if (identities) return identities;
  const { bucket, p12Password, p12PasswordParameter, dataDir } = config.identity;
  identities = bucket
    ? createS3IdentityStore({ bucket, p12Password: p12PasswordParameter ? () => readSecureParameter(p12PasswordParameter) : p12Password })
    : createLocalIdentityStore({ dir: join(dataDir, "identity"), p12Password });
  return identities;
}

/**
 * certificateStore is the public half, for verify and verify-key: on AWS the chain the signing
 * function published (those functions may not read the key); locally the identity itself, minus the key.
 */
export function certificateStore(): CertificateStore {
  if (certificates) return certificates;
  const { bucket } = config.identity;
  certificates = bucket ? createS3CertificateStore({ bucket }) : { load: async () => publicIdentity(await identityStore().load()) };
  return certificates;
}

/** signDependencies are sign's: fetchers, converter, identity, fonts, limits and (with SIGNET_TSA_URL) the timestamp authority. */
export function signDependencies(): SignDependencies {
  const { limits, signing } = config;
  return {
    fetcher: safeFetcher,
    converter: converter(),
    identities: identityStore(),
    fonts: fontFiles,
    limits: { ...config.documentLimits, maxAuditEvents: limits.maxAuditEvents, maxMetadataBytes: limits.maxMetadataBytes },
    revocationFetcher,
    ...(signing.tsaUrl ? { timestamper: createHttpTimestamper(signing.tsaUrl), timestampAuthority: new URL(signing.tsaUrl).host } : {}),
  };
}

/** timestampDependencies are /v1/timestamp's: fetchers, limits and (with SIGNET_TSA_URL) the timestamp authority. */
export function timestampDependencies(): TimestampDependencies {
  const { tsaUrl } = config.signing;
  return { fetcher: safeFetcher, revocationFetcher, limits: config.documentLimits, ...(tsaUrl ? { timestamper: createHttpTimestamper(tsaUrl) } : {}) };
}

/** verifyDependencies are verify's: fetcher, limits, and the trust store (our certificate plus SIGNET_TRUST_ANCHORS_FILE). */
export function verifyDependencies(): VerifyDependencies {
  return { fetcher: safeFetcher, limits: config.documentLimits, trust: createTrustStore(certificateStore(), config.signing.trustAnchorsFile) };
}
