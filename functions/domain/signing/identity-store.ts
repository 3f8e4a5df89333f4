import { X509Certificate } from "node:crypto";
import { SignetError } from "#domain/shared/errors.ts";
import { revocationSources } from "#domain/signing/ltv.ts";
import {
  IdentityFormatError,
  generateLocalIdentity,
  identityToPem,
  localRootCommonName,
  parseP12Identity,
  parsePemIdentity,
  rootCertificate,
  type SigningIdentity,
  type SigningIdentityStore,
} from "#domain/signing/signing-identity.ts";

/** identityFileNames are the files (or object keys) an operator may provide; the p12 wins. */
export const identityFileNames = { p12: "identity.p12", pem: "identity.pem" } as const;

/**
 * certificateChainFileName is the public half of the identity: the signing certificate and its
 * chain, leaf first, as PEM. The signing side publishes it; functions that only need to know the
 * certificate (verify, verify-key on AWS) read this and nothing else, so they never hold the key.
 */
export const certificateChainFileName = "identity-chain.pem";

/** PublicIdentity is what may be known of the signing identity without its private key. */
export type PublicIdentity = Pick<SigningIdentity, "certificate" | "chain" | "keyType">;

/** CertificateStore loads the published certificate chain of the signing identity. */
export interface CertificateStore {
  /** undefined while none is published (on AWS: before the first signature). */
  load(): Promise<PublicIdentity | undefined>;
}

/** publicIdentity drops the private key. */
export function publicIdentity(identity: PublicIdentity): PublicIdentity {
  return { certificate: identity.certificate, chain: identity.chain, keyType: identity.keyType };
}

/** certificateChainPem writes the certificate and its chain, leaf first (no key). */
export function certificateChainPem(identity: PublicIdentity): string {
  return [identity.certificate, ...identity.chain].map((certificate) => certificate.toString().trim()).join("\n") + "\n";
}

/** parseCertificateChain reads what certificateChainPem wrote. */
export function parseCertificateChain(pem: string): PublicIdentity {
  const blocks = Array.from(pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g), (match) => match[0]);
  if (blocks.length === 0) throw new IdentityFormatError("the published certificate chain holds no certificate");
  let certificates: X509Certificate[];
  try {
    certificates = blocks.map((block) => new X509Certificate(block));
  } catch {
    throw new IdentityFormatError("a certificate of the published chain is not a readable X.509 certificate");
  }
  const [certificate, ...chain] = certificates as [X509Certificate, ...X509Certificate[]];
  const type = certificate.publicKey.asymmetricKeyType;
  if (type !== "rsa" && type !== "ec") throw new IdentityFormatError(`keys of type ${type ?? "unknown"} are not supported; use RSA or ECDSA P-256`);
  return { certificate, chain, keyType: type === "rsa" ? "RSA" : "EC" };
}

/**
 * rootKeyFileName holds a generated local identity's root CA (key and certificate, PEM), kept so
 * the local server can sign CRLs for the signing certificate. Only the local store writes it.
 */
export const rootKeyFileName = "identity-root.pem";

/** IdentityFileName is one of identityFileNames, the local root's file, or the published chain (a KMS identity's certificates). */
export type IdentityFileName = (typeof identityFileNames)[keyof typeof identityFileNames] | typeof rootKeyFileName | typeof certificateChainFileName;

/**
 * IdentityFiles is where the identity files live (a folder, a bucket). Outages are raised as
 * SignetError by the implementation; a missing file is undefined.
 */
export interface IdentityFiles {
  read(name: IdentityFileName): Promise<Buffer | undefined>;
  /** Writes the file unless it exists; false when another writer got there first. */
  createIfAbsent(name: IdentityFileName, text: string): Promise<boolean>;
  /** Where a file is, for the log only (never sent to callers). */
  describe(name: IdentityFileName): string;
}

/** IdentityStoreOptions say how identities are opened and generated. */
export interface IdentityStoreOptions {
  p12Password: string;
  /**
   * Locally: keep a generated identity's root CA (identity-root.pem) to sign CRLs, and name
   * `crlUrl()` (when it is known at generation) as the signing certificate's CRL distribution point.
   * Absent on AWS: the root key is dropped and the certificate names no revocation source.
   */
  crls?: { crlUrl: () => string | undefined } | undefined;
  /** Why a generated identity without revocation data cannot reach B-LT, and what to do (the store's own wording). */
  noRevocationHint: string;
}

/**
 * createIdentityStore loads the signing identity once per process: identity.p12 (with the
 * operator's password) wins over identity.pem (private key + chain); when neither exists a
 * local root CA and a signing certificate it issues are generated and written (key, certificate,
 * root) with create-if-absent, so concurrent starts settle on one key; with `crls` the root's key
 * follows in identity-root.pem. A failed load is retried on the next call.
 */
export function createIdentityStore(files: IdentityFiles, options: IdentityStoreOptions): SigningIdentityStore {
  async function parse(name: IdentityFileName, bytes: Buffer): Promise<SigningIdentity> {
    try {
      return name === identityFileNames.p12 ? await parseP12Identity(bytes, options.p12Password) : parsePemIdentity(bytes.toString("utf8"));
    } catch (error) {
      // The caller sees the reason only (never the location, never key material); the location
      // and the original error travel in `cause`, which the pipeline logs.
      const reason = error instanceof IdentityFormatError ? error.message : "unreadable";
      throw new SignetError("SERVICE_UNAVAILABLE", `The service's signing identity cannot be used: ${reason}.`, {
        cause: new Error(`signing identity ${files.describe(name)}: ${reason}`, { cause: error }),
      });
    }
  }

  /** withRevocation attaches the kept root (when it is this identity's root) and says when B-LT is out of reach. */
  async function withRevocation(identity: SigningIdentity): Promise<SigningIdentity> {
    const root = rootCertificate(identity);
    const generated = identity.chain.length === 1 && root.subject === `CN=${localRootCommonName}`;
    if (!generated) return identity;
    let crlIssuer: SigningIdentity | undefined;
    if (options.crls) {
      const bytes = await files.read(rootKeyFileName);
      const kept = bytes ? await parse(rootKeyFileName, bytes) : undefined;
      if (kept?.certificate.fingerprint256 === root.fingerprint256) crlIssuer = kept;
    }
    const sources = revocationSources(identity.certificate);
    const revocationProblem =
      sources.length === 0
        ? options.noRevocationHint
        : options.crls && !crlIssuer
          ? `B-LT needs a CRL for the local signing certificate, and the key of its root CA (${rootKeyFileName}, next to identity.pem) is missing or belongs to another root: move the identity folder of the data folder aside and restart the local server to generate a CRL-capable identity (B-B and B-T keep working with this one).`
          : undefined;
    return {
      ...identity,
      ...(crlIssuer ? { crlIssuer: { signer: crlIssuer.signer, certificate: crlIssuer.certificate } } : {}),
      ...(revocationProblem ? { revocationProblem } : {}),
    };
  }

  async function read(): Promise<SigningIdentity | undefined> {
    for (const name of [identityFileNames.p12, identityFileNames.pem]) {
      const bytes = await files.read(name);
      if (bytes) return withRevocation(await parse(name, bytes));
    }
    return undefined;
  }

  async function loadOnce(): Promise<SigningIdentity> {
    const existing = await read();
    if (existing) return existing;
    const { identity, root } = await generateLocalIdentity({ crlUrl: options.crls?.crlUrl() });
    // identity.pem is the commit point; the root follows (a lost race leaves a root that
    // matches no identity, which withRevocation ignores).
    if (await files.createIfAbsent(identityFileNames.pem, identityToPem(identity))) {
      if (options.crls) await files.createIfAbsent(rootKeyFileName, identityToPem(root));
    }
    return (await read())!;
  }

  let loading: Promise<SigningIdentity> | undefined;
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
