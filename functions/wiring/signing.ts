/**
 * Wiring of signing and verifying (sign, verify, verify-key, the local bootstrap): the signing
 * identity (S3 on AWS, the data folder locally), the public certificate, the trust anchors, the
 * fonts, the timestamp authority and the limits from config.
 */
import { join } from "node:path";
import type { S3Client } from "@aws-sdk/client-s3";
import type { SSMClient } from "@aws-sdk/client-ssm";
import { config } from "#config";
import { localBaseUrl } from "#http/public-url.ts";
import { bundledFonts } from "#adapters/bundled-fonts.ts";
import { createHttpTimestamper } from "#adapters/http-timestamper.ts";
import { createKmsSigner, kmsClientFor, kmsSignerDefaults } from "#adapters/kms-signer.ts";
import { createLocalIdentityStore, localCrlFile, localIdentityFiles, localNoRevocationHint } from "#adapters/local-identity-store.ts";
import { createOwnCrlFetcher } from "#adapters/own-crl-fetcher.ts";
import {
  awsNoRevocationHint,
  createS3CertificateStore,
  createS3IdentityStore,
  identityClientFor,
  s3CrlFile,
  s3IdentityFiles,
} from "#adapters/s3-identity-store.ts";
import { readSecureParameter, ssmClientFor } from "#adapters/ssm-secure-parameter.ts";
import { createTrustStore } from "#adapters/trust-anchors.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { CrlKeeper, storedCrl, type CrlFile, type KeptCrl } from "#domain/signing/crl-keeper.ts";
import { publicIdentity, type CertificateStore } from "#domain/signing/identity-store.ts";
import { createKmsIdentityStore } from "#domain/signing/kms-identity-store.ts";
import type { KeyLocation } from "#domain/pki/signer.ts";
import type { FontFiles } from "#domain/pdf-text/fonts.ts";
import type { SignDependencies } from "#domain/signing/sign-document.ts";
import type { CrlIssuer } from "#domain/pki/crl.ts";
import { rootCertificate, type SigningIdentityStore } from "#domain/signing/signing-identity.ts";
import type { TimestampDependencies } from "#domain/signing/timestamp-document.ts";
import type { VerifyDependencies } from "#domain/verification/verify-document.ts";
import { converter } from "#wiring/conversion.ts";
import { revocationFetcher, safeFetcher } from "#wiring/fetch.ts";

let identities: SigningIdentityStore | undefined;
let certificates: CertificateStore | undefined;
let identityBucket: S3Client | undefined;
let parameters: SSMClient | undefined;

/** identityClient is this container's client of the identity bucket, created on first use. */
function identityClient(): S3Client {
  identityBucket ??= identityClientFor(config.region);
  return identityBucket;
}

/** p12PasswordFrom reads the P12 password from its SecureString parameter (one Parameter Store client per container). */
function p12PasswordFrom(parameter: string): () => Promise<string> {
  return () => readSecureParameter(parameter, (parameters ??= ssmClientFor(config.region)));
}

let fonts: (() => FontFiles) | undefined;

/** fontFiles are the certificate page's fonts from SIGNET_FONTS_DIR, plus SIGNET_EXTRA_FONTS_DIR's on demand, read once per container. */
function fontFiles(): FontFiles {
  fonts ??= bundledFonts({ fontsDir: config.signing.fontsDir, extraFontsDir: config.signing.extraFontsDir });
  return fonts();
}

/** crlPath is where the service serves its CRL (GET, functions/verify-crl.ts). */
const crlPath = "/v1/verify/crl";

/**
 * ownCrlUrl is the URL of this service's CRL: SIGNET_PUBLIC_URL, else the local server's address,
 * plus /v1/verify/crl. On AWS only with Signet's root key in KMS (SIGNET_KMS_ROOT_KEY_ID) and the
 * API's URL (the stack sets both on sign); undefined there otherwise (no CRL is issued), and
 * before the local server listens.
 */
function ownCrlUrl(): string | undefined {
  if (config.runtime === "aws" && !config.identity.kmsRootKeyId) return undefined;
  const base = config.runtime === "aws" ? config.publicUrl : localBaseUrl();
  return base ? `${base}${crlPath}` : undefined;
}

let rootSigner: Promise<CrlIssuer> | undefined;

/**
 * awsCrlIssuer is the root CA in KMS with its published certificate (identity-chain.pem): what
 * signs the CRL on AWS, in the CRL issuer function (daily) and in sign (B-LT, when the kept one
 * is missing or due), neither of which needs the signing key for it. NOT_FOUND while no chain is published or when its root is
 * not the KMS root (a CA's certificate: that CA publishes the revocation data).
 */
function awsCrlIssuer(rootKeyId: string): Promise<CrlIssuer> {
  rootSigner ??= (async () => {
    const chain = await certificateStore().load();
    if (!chain) throw new SignetError("NOT_FOUND", "This service has no signing certificate yet, hence no CRL: the first POST /v1/sign issues both.");
    const { kmsEndpoint } = config.identity;
    const root = await createKmsSigner({ keyId: rootKeyId, client: kmsClientFor({ region: config.region, endpoint: kmsEndpoint }), ...kmsSignerDefaults });
    const top = rootCertificate(chain);
    if (!top.publicKey.equals(root.publicKey)) {
      throw new SignetError(
        "NOT_FOUND",
        "This service publishes no CRL: its signing certificate was issued by an operator's CA, which publishes the revocation data.",
      );
    }
    return { signer: root, certificate: top };
  })().catch((error: unknown) => {
    rootSigner = undefined;
    throw error;
  });
  return rootSigner;
}

/** crlIssuer is the CA that signs this service's CRL: on AWS the root in KMS, locally the identity's root; NOT_FOUND when Signet holds no such root. */
async function crlIssuer(): Promise<CrlIssuer> {
  if (config.runtime === "aws") {
    const { kmsRootKeyId } = config.identity;
    if (!kmsRootKeyId) throw noAwsCrl();
    return awsCrlIssuer(kmsRootKeyId);
  }
  const identity = await identityStore().load();
  if (!identity.crlIssuer) {
    throw new SignetError(
      "NOT_FOUND",
      "This server publishes no CRL: its signing identity was provided by an operator (its CA publishes the revocation data) or generated before Signet kept the root key to sign CRLs.",
    );
  }
  return identity.crlIssuer;
}

function noAwsCrl(): SignetError {
  return new SignetError(
    "NOT_FOUND",
    "This service publishes no CRL: on AWS with a key file the signing certificate's revocation data comes from the CA that issued it (an operator-provided identity).",
  );
}

let crlFiles: CrlFile | undefined;

/** crlFile is where the issued CRL is kept: identity-root.crl in the identity bucket (AWS) or the identity folder (local). */
function crlFile(): CrlFile {
  const { bucket, dataDir } = config.identity;
  crlFiles ??= bucket ? s3CrlFile({ bucket, client: identityClient() }) : localCrlFile(join(dataDir, "identity"));
  return crlFiles;
}

let keeper: CrlKeeper | undefined;

/**
 * keptCrl is the CRL of the identity's root, issued once and kept (CrlKeeper): a new one is signed
 * only when none is kept, the root changed, or fewer than 3 days are left of its 7. Locally this
 * is what GET /v1/verify/crl and B-LT use; on AWS the CRL issuer function (daily, functions/crl-issuer.ts)
 * and sign (B-LT) call it, the functions holding the root key.
 */
export function keptCrl(): Promise<KeptCrl> {
  keeper ??= new CrlKeeper(crlFile(), crlIssuer);
  return keeper.current(new Date());
}

/**
 * servedCrl is what GET /v1/verify/crl answers, without signing anything on AWS: there verify-crl
 * holds no key and serves the kept CRL of the published chain's root (SERVICE_UNAVAILABLE with
 * Retry-After until the issuer has run). Locally the kept CRL, issued on first need.
 */
export async function servedCrl(): Promise<KeptCrl> {
  if (config.runtime !== "aws") return keptCrl();
  if (!config.identity.kmsRootKeyId) throw noAwsCrl();
  const chain = await certificateStore().load();
  if (!chain) throw new SignetError("NOT_FOUND", "This service has no signing certificate yet, hence no CRL: the first POST /v1/sign issues both.");
  const kept = await storedCrl(crlFile(), rootCertificate(chain));
  if (!kept) {
    throw new SignetError("SERVICE_UNAVAILABLE", "This service's CRL has not been issued yet; retry in a minute.", {
      retryAfterSeconds: 60,
      cause: new Error("no identity-root.crl of the published root in the identity bucket: the CrlIssuer function has not run since the chain was issued"),
    });
  }
  return kept;
}

/**
 * identityStore is this container's signing identity source: with SIGNET_KMS_KEY_ID the key in
 * AWS KMS (the local stand-in when the local server started one) and its certificate chain from
 * the identity bucket or folder; else the key file from the S3 bucket when SIGNET_IDENTITY_BUCKET
 * is set (AWS), or from <data folder>/identity (local). Its load() caches the identity for the
 * life of the container. Only signing uses it. On AWS the P12 password, when there is one, is read
 * from its SecureString parameter on the first load, not from the environment.
 */
export function identityStore(): SigningIdentityStore {
  if (identities) return identities;
  const { bucket, p12Password, p12PasswordParameter, dataDir, kmsKeyId } = config.identity;
  if (kmsKeyId) {
    identities = kmsIdentityStore(kmsKeyId);
    return identities;
  }
  identities = bucket
    ? createS3IdentityStore({ bucket, client: identityClient(), p12Password: p12PasswordParameter ? p12PasswordFrom(p12PasswordParameter) : p12Password })
    : createLocalIdentityStore({ dir: join(dataDir, "identity"), p12Password, crlUrl: ownCrlUrl });
  return identities;
}

/** kmsIdentityStore is the identity whose keys stay in AWS KMS (SIGNET_KMS_KEY_ID, SIGNET_KMS_ROOT_KEY_ID). */
function kmsIdentityStore(keyId: string): SigningIdentityStore {
  const { bucket, dataDir, kmsRootKeyId, kmsEndpoint } = config.identity;
  if (keyId === "local" && !kmsEndpoint) {
    throw new Error("Configuration error: SIGNET_KMS_KEY_ID=local needs the local server's KMS stand-in (npm start); on AWS set a key id, ARN or alias");
  }
  const client = kmsClientFor({ region: config.region, endpoint: kmsEndpoint });
  const signer = (id: string) => () => createKmsSigner({ keyId: id, client, ...kmsSignerDefaults });
  return createKmsIdentityStore(bucket ? s3IdentityFiles({ bucket, client: identityClient() }) : localIdentityFiles(join(dataDir, "identity")), {
    signer: signer(keyId),
    root: kmsRootKeyId ? signer(kmsRootKeyId) : undefined,
    crlUrl: ownCrlUrl,
    noRevocationHint: bucket ? awsNoRevocationHint : localNoRevocationHint,
  });
}

/**
 * certificateStore is the public half, for verify and verify-key: on AWS the chain the signing
 * function published (those functions may not read the key); locally the identity itself, minus the key.
 */
export function certificateStore(): CertificateStore {
  if (certificates) return certificates;
  const { bucket } = config.identity;
  certificates = bucket ? createS3CertificateStore({ bucket, client: identityClient() }) : { load: async () => publicIdentity(await identityStore().load()) };
  return certificates;
}

let revocations: Fetcher | undefined;

/**
 * longTermFetcher fetches revocation data for B-LT/B-LTA: the revocation fetcher (safe fetcher
 * policy, loopback refused), and in front of it (locally, and on AWS with Signet's root in KMS)
 * this service's own CRL signed in-process, without a network hop (exactly ownCrlUrl(), nothing
 * else on loopback).
 */
function longTermFetcher(): Fetcher {
  revocations ??=
    config.runtime === "aws" && !config.identity.kmsRootKeyId
      ? revocationFetcher()
      : createOwnCrlFetcher(revocationFetcher(), { url: ownCrlUrl, crl: async () => (await keptCrl()).der });
  return revocations;
}

/**
 * signingKeyLocation says where the signing key lives, from the configuration alone (verify-key
 * on AWS holds no key and may not call KMS Sign): SIGNET_KMS_KEY_ID (the stack sets the key ARN), else a key file.
 */
export function signingKeyLocation(): KeyLocation {
  const { kmsKeyId } = config.identity;
  return kmsKeyId ? { kind: "kms", keyArn: kmsKeyId } : { kind: "file" };
}

/** signDependencies are sign's: fetchers, converter, identity, fonts, limits and (with SIGNET_TSA_URL) the timestamp authority. */
export function signDependencies(): SignDependencies {
  const { limits, signing } = config;
  return {
    fetcher: safeFetcher(),
    converter: converter(),
    identities: identityStore(),
    fonts: fontFiles,
    limits: { ...config.documentLimits, maxAuditEvents: limits.maxAuditEvents, maxMetadataBytes: limits.maxMetadataBytes },
    revocationFetcher: longTermFetcher(),
    ...(signing.tsaUrl ? { timestamper: createHttpTimestamper(signing.tsaUrl), timestampAuthority: new URL(signing.tsaUrl).host } : {}),
  };
}

/** timestampDependencies are /v1/timestamp's: fetchers, limits and (with SIGNET_TSA_URL) the timestamp authority. */
export function timestampDependencies(): TimestampDependencies {
  const { tsaUrl } = config.signing;
  return {
    fetcher: safeFetcher(),
    revocationFetcher: longTermFetcher(),
    limits: config.documentLimits,
    ...(tsaUrl ? { timestamper: createHttpTimestamper(tsaUrl) } : {}),
  };
}

/** verifyDependencies are verify's: fetcher, limits, and the trust store (our certificate plus SIGNET_TRUST_ANCHORS_FILE). */
export function verifyDependencies(): VerifyDependencies {
  return { fetcher: safeFetcher(), limits: config.documentLimits, trust: createTrustStore(certificateStore(), config.signing.trustAnchorsFile) };
}
