/**
 * Wiring of signing and verifying (sign, verify, verify-key, the local bootstrap) for a container:
 * the signing identity (S3 on AWS, the data folder locally), the public certificate, the trust anchors, the
 * fonts, the timestamp authority and the limits from config.
 */
import { join } from "node:path";
import type { S3Client } from "@aws-sdk/client-s3";
import type { SSMClient } from "@aws-sdk/client-ssm";
import type { Config } from "#config";
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
import type { Container } from "#wiring/container.ts";
import { converter, intakeLimits } from "#wiring/conversion.ts";
import { pictures } from "#wiring/pictures.ts";
import { revocationFetcher, safeFetcher } from "#wiring/fetch.ts";

/** crlPath is where the service serves its CRL (GET, functions/verify-crl.ts). */
const crlPath = "/v1/verify/crl";

function noAwsCrl(): SignetError {
  return new SignetError(
    "NOT_FOUND",
    "This service publishes no CRL: on AWS with a key file the signing certificate's revocation data comes from the CA that issued it (an operator-provided identity).",
  );
}

function noCertificateYet(): SignetError {
  return new SignetError("NOT_FOUND", "This service has no signing certificate yet, hence no CRL: the first POST /v1/sign issues both.");
}

/** signing is a container's signing side, made on first use. */
export function signing(container: Container): SigningWiring {
  return container.part("signing", (own) => new SigningWiring(own));
}

/**
 * SigningWiring is a container's signing side: the identity, its public half, the kept CRL and
 * the clients they use, each made once on first use from the container's config, and the
 * dependencies of sign, timestamp and verify built on them.
 */
export class SigningWiring {
  readonly #container: Container;
  readonly #config: Config;
  #identities: SigningIdentityStore | undefined;
  #certificates: CertificateStore | undefined;
  #identityBucket: S3Client | undefined;
  #parameters: SSMClient | undefined;
  #fonts: (() => FontFiles) | undefined;
  #rootSigner: Promise<CrlIssuer> | undefined;
  #crlFile: CrlFile | undefined;
  #keeper: CrlKeeper | undefined;
  #longTerm: Fetcher | undefined;

  constructor(container: Container) {
    this.#container = container;
    this.#config = container.config;
  }

  /** identityClient is the client of the identity bucket, created on first use. */
  #identityClient(): S3Client {
    this.#identityBucket ??= identityClientFor(this.#config.region);
    return this.#identityBucket;
  }

  /** p12PasswordFrom reads the P12 password from its SecureString parameter (one Parameter Store client per container). */
  #p12PasswordFrom(parameter: string): () => Promise<string> {
    return () => readSecureParameter(parameter, (this.#parameters ??= ssmClientFor(this.#config.region)));
  }

  /** fontFiles are the certificate page's fonts from SIGNET_FONTS_DIR, plus SIGNET_EXTRA_FONTS_DIR's on demand, read once per container. */
  readonly fontFiles = (): FontFiles => {
    this.#fonts ??= bundledFonts({ fontsDir: this.#config.signing.fontsDir, extraFontsDir: this.#config.signing.extraFontsDir });
    return this.#fonts();
  };

  /**
   * ownCrlUrl is the URL of this service's CRL: SIGNET_PUBLIC_URL, else the local server's address,
   * plus /v1/verify/crl. On AWS only with Signet's root key in KMS (SIGNET_KMS_ROOT_KEY_ID) and the
   * API's URL (the stack sets both on sign); undefined there otherwise (no CRL is issued), and
   * before the local server listens.
   */
  readonly ownCrlUrl = (): string | undefined => {
    const config = this.#config;
    if (config.runtime === "aws" && !config.identity.kmsRootKeyId) return undefined;
    const base = config.runtime === "aws" ? config.publicUrl : (config.publicUrl ?? this.#container.localServerUrl());
    return base ? `${base}${crlPath}` : undefined;
  };

  /**
   * awsCrlIssuer is the root CA in KMS with its published certificate (identity-chain.pem): what
   * signs the CRL on AWS, in the CRL issuer function (daily) and in sign (B-LT, when the kept one
   * is missing or due), neither of which needs the signing key for it. NOT_FOUND while no chain is published or when its root is
   * not the KMS root (a CA's certificate: that CA publishes the revocation data).
   */
  #awsCrlIssuer(rootKeyId: string): Promise<CrlIssuer> {
    this.#rootSigner ??= (async () => {
      const chain = await this.certificateStore().load();
      if (!chain) throw noCertificateYet();
      const { kmsEndpoint } = this.#config.identity;
      const root = await createKmsSigner({
        keyId: rootKeyId,
        client: kmsClientFor({ region: this.#config.region, credentials: this.#config.credentials, endpoint: kmsEndpoint }),
        ...kmsSignerDefaults,
      });
      const top = rootCertificate(chain);
      if (!top.publicKey.equals(root.publicKey)) {
        throw new SignetError(
          "NOT_FOUND",
          "This service publishes no CRL: its signing certificate was issued by an operator's CA, which publishes the revocation data.",
        );
      }
      return { signer: root, certificate: top };
    })().catch((error: unknown) => {
      this.#rootSigner = undefined;
      throw error;
    });
    return this.#rootSigner;
  }

  /** crlIssuer is the CA that signs this service's CRL: on AWS the root in KMS, locally the identity's root; NOT_FOUND when Signet holds no such root. */
  readonly #crlIssuer = async (): Promise<CrlIssuer> => {
    if (this.#config.runtime === "aws") {
      const { kmsRootKeyId } = this.#config.identity;
      if (!kmsRootKeyId) throw noAwsCrl();
      return this.#awsCrlIssuer(kmsRootKeyId);
    }
    const identity = await this.identityStore().load();
    if (!identity.crlIssuer) {
      throw new SignetError(
        "NOT_FOUND",
        "This server publishes no CRL: its signing identity was provided by an operator (its CA publishes the revocation data) or generated before Signet kept the root key to sign CRLs.",
      );
    }
    return identity.crlIssuer;
  };

  /** crlFile is where the issued CRL is kept: identity-root.crl in the identity bucket (AWS) or the identity folder (local). */
  #crlFileOf(): CrlFile {
    const { bucket, dataDir } = this.#config.identity;
    this.#crlFile ??= bucket ? s3CrlFile({ bucket, client: this.#identityClient() }) : localCrlFile(join(dataDir, "identity"));
    return this.#crlFile;
  }

  /**
   * keptCrl is the CRL of the identity's root, issued once and kept (CrlKeeper): a new one is signed
   * only when none is kept, the root changed, or fewer than 3 days are left of its 7. Locally this
   * is what GET /v1/verify/crl and B-LT use; on AWS the CRL issuer function (daily, functions/crl-issuer.ts)
   * and sign (B-LT) call it, the functions holding the root key.
   */
  keptCrl(): Promise<KeptCrl> {
    this.#keeper ??= new CrlKeeper(this.#crlFileOf(), this.#crlIssuer);
    return this.#keeper.current(new Date());
  }

  /**
   * servedCrl is what GET /v1/verify/crl answers, without signing anything on AWS: there verify-crl
   * holds no key and serves the kept CRL of the published chain's root (SERVICE_UNAVAILABLE with
   * Retry-After until the issuer has run). Locally the kept CRL, issued on first need.
   */
  async servedCrl(): Promise<KeptCrl> {
    if (this.#config.runtime !== "aws") return this.keptCrl();
    if (!this.#config.identity.kmsRootKeyId) throw noAwsCrl();
    const chain = await this.certificateStore().load();
    if (!chain) throw noCertificateYet();
    const kept = await storedCrl(this.#crlFileOf(), rootCertificate(chain));
    if (!kept) {
      throw new SignetError("SERVICE_UNAVAILABLE", "This service's CRL has not been issued yet; retry in a minute.", {
        retryAfterSeconds: 60,
        cause: new Error("no identity-root.crl of the published root in the identity bucket: the CrlIssuer function has not run since the chain was issued"),
      });
    }
    return kept;
  }

  /**
   * identityStore is the signing identity source: with SIGNET_KMS_KEY_ID the key in AWS KMS (the
   * local stand-in when the local server started one) and its certificate chain from the identity
   * bucket or folder; else the key file from the S3 bucket when SIGNET_IDENTITY_BUCKET is set
   * (AWS), or from <data folder>/identity (local). Its load() caches the identity for the life of
   * the container. Only signing uses it. On AWS the P12 password, when there is one, is read from
   * its SecureString parameter on the first load, not from the environment.
   */
  identityStore(): SigningIdentityStore {
    if (this.#identities) return this.#identities;
    const { bucket, p12Password, p12PasswordParameter, dataDir, kmsKeyId } = this.#config.identity;
    if (kmsKeyId) {
      this.#identities = this.#kmsIdentityStore(kmsKeyId);
      return this.#identities;
    }
    this.#identities = bucket
      ? createS3IdentityStore({
          bucket,
          client: this.#identityClient(),
          p12Password: p12PasswordParameter ? this.#p12PasswordFrom(p12PasswordParameter) : p12Password,
        })
      : createLocalIdentityStore({ dir: join(dataDir, "identity"), p12Password, crlUrl: this.ownCrlUrl });
    return this.#identities;
  }

  /** kmsIdentityStore is the identity whose keys stay in AWS KMS (SIGNET_KMS_KEY_ID, SIGNET_KMS_ROOT_KEY_ID). */
  #kmsIdentityStore(keyId: string): SigningIdentityStore {
    const { bucket, dataDir, kmsRootKeyId, kmsEndpoint } = this.#config.identity;
    if (keyId === "local" && !kmsEndpoint) {
      throw new Error("Configuration error: SIGNET_KMS_KEY_ID=local needs the local server's KMS stand-in (npm start); on AWS set a key id, ARN or alias");
    }
    const client = kmsClientFor({ region: this.#config.region, credentials: this.#config.credentials, endpoint: kmsEndpoint });
    const signer = (id: string) => () => createKmsSigner({ keyId: id, client, ...kmsSignerDefaults });
    const files = bucket ? s3IdentityFiles({ bucket, client: this.#identityClient() }) : localIdentityFiles(join(dataDir, "identity"));
    return createKmsIdentityStore(files, {
      signer: signer(keyId),
      root: kmsRootKeyId ? signer(kmsRootKeyId) : undefined,
      crlUrl: this.ownCrlUrl,
      noRevocationHint: bucket ? awsNoRevocationHint : localNoRevocationHint,
    });
  }

  /**
   * certificateStore is the public half, for verify and verify-key: on AWS the chain the signing
   * function published (those functions may not read the key); locally the identity itself, minus the key.
   */
  certificateStore(): CertificateStore {
    if (this.#certificates) return this.#certificates;
    const { bucket } = this.#config.identity;
    this.#certificates = bucket
      ? createS3CertificateStore({ bucket, client: this.#identityClient() })
      : { load: async () => publicIdentity(await this.identityStore().load()) };
    return this.#certificates;
  }

  /**
   * longTermFetcher fetches revocation data for B-LT/B-LTA: the revocation fetcher (safe fetcher
   * policy, loopback refused), and in front of it (locally, and on AWS with Signet's root in KMS)
   * this service's own CRL signed in-process, without a network hop (exactly ownCrlUrl(), nothing
   * else on loopback).
   */
  longTermFetcher(): Fetcher {
    const revocations = revocationFetcher(this.#container);
    this.#longTerm ??=
      this.#config.runtime === "aws" && !this.#config.identity.kmsRootKeyId
        ? revocations
        : createOwnCrlFetcher(revocations, { url: this.ownCrlUrl, crl: async () => (await this.keptCrl()).der });
    return this.#longTerm;
  }

  /**
   * signingKeyLocation says where the signing key lives, from the configuration alone (verify-key
   * on AWS holds no key and may not call KMS Sign): SIGNET_KMS_KEY_ID (the stack sets the key ARN), else a key file.
   */
  signingKeyLocation(): KeyLocation {
    const { kmsKeyId } = this.#config.identity;
    return kmsKeyId ? { kind: "kms", keyArn: kmsKeyId } : { kind: "file" };
  }

  /** verifyDependencies are verify's: fetcher, limits, and the trust store (our certificate plus SIGNET_TRUST_ANCHORS_FILE). */
  verifyDependencies(): VerifyDependencies {
    return {
      fetcher: safeFetcher(this.#container),
      limits: this.#config.documentLimits,
      trust: createTrustStore(this.certificateStore(), this.#config.signing.trustAnchorsFile),
    };
  }
}

// sign's and timestamp's dependencies are functions, not methods of SigningWiring: verify's bundle
// then leaves out the converter and the timestamper, which only these two reach.

/** signDependencies are sign's: fetchers, converter, identity, fonts, limits and (with SIGNET_TSA_URL) the timestamp authority. */
export function signDependencies(container: Container): SignDependencies {
  const { limits, signing: settings } = container.config;
  const wiring = signing(container);
  return {
    fetcher: safeFetcher(container),
    converter: converter(container),
    identities: wiring.identityStore(),
    fonts: wiring.fontFiles,
    images: { fetcher: safeFetcher(container), maxImageBytes: limits.maxImageBytes, maxImagePixels: limits.maxImagePixels, pictures: pictures(container) },
    limits: { ...intakeLimits(container.config), maxAuditEvents: limits.maxAuditEvents, maxMetadataBytes: limits.maxMetadataBytes },
    revocationFetcher: wiring.longTermFetcher(),
    ...(settings.tsaUrl ? { timestamper: createHttpTimestamper(settings.tsaUrl), timestampAuthority: new URL(settings.tsaUrl).host } : {}),
  };
}

/** timestampDependencies are /v1/timestamp's: fetchers, limits and (with SIGNET_TSA_URL) the timestamp authority. */
export function timestampDependencies(container: Container): TimestampDependencies {
  const { tsaUrl } = container.config.signing;
  return {
    fetcher: safeFetcher(container),
    revocationFetcher: signing(container).longTermFetcher(),
    limits: container.config.documentLimits,
    ...(tsaUrl ? { timestamper: createHttpTimestamper(tsaUrl) } : {}),
  };
}
