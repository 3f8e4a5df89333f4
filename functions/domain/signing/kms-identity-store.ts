import type { X509Certificate } from "node:crypto";
import { SignetError } from "#domain/shared/errors.ts";
import {
  certificateChainFileName,
  certificateChainPem,
  parseCertificateChain,
  type IdentityFiles,
  type PublicIdentity,
} from "#domain/signing/identity-store.ts";
import { revocationSources } from "#domain/signing/ltv.ts";
import { KeyMismatchError, checkCertificateMatches, type Signer } from "#domain/pki/signer.ts";
import { IdentityFormatError, issueCertificate, rootCertificate, type SigningIdentity, type SigningIdentityStore } from "#domain/signing/signing-identity.ts";

/** kmsRootCommonName is the subject CN of the root CA Signet issues for a key in KMS. */
export const kmsRootCommonName = "Signet Root CA";

/** kmsSigningCommonName is the subject CN of the signing certificate Signet issues for a key in KMS. */
export const kmsSigningCommonName = "Signet Signing";

/** KmsIdentityOptions are the keys (behind their signers) and how certificates are issued for them. */
export interface KmsIdentityOptions {
  /** The signing key's signer (GetPublicKey done). */
  signer: () => Promise<Signer>;
  /** The root CA's key: issues the certificates at first use and signs the CRL. Absent when the operator's CA certifies the key. */
  root?: (() => Promise<Signer>) | undefined;
  /** The CRL distribution point to name in a newly issued signing certificate, when known. */
  crlUrl: () => string | undefined;
  /** Why an identity without revocation data cannot reach B-LT, and what to do. */
  noRevocationHint: string;
}

/** keyMismatch is the start-up refusal when the stored certificate does not certify the KMS key. */
function keyMismatch(error: KeyMismatchError, where: string): SignetError {
  return new SignetError(
    "SERVICE_UNAVAILABLE",
    `The service's signing certificate does not match its signing key in AWS KMS (certificate key SHA-256 ${error.certificateKeyFingerprint}, KMS key SHA-256 ${error.signingKeyFingerprint}); nothing is signed until the operator installs a certificate for this key.`,
    {
      cause: new Error(
        `${where}: ${error.message}; install the certificate chain of this key (npm run identity:install-cert), or move the file aside to have Signet issue one (with a root key)`,
        { cause: error },
      ),
    },
  );
}

/** issueChain issues a root certificate (self-signed by the root key) and a signing certificate for the signing key, both through KMS. */
async function issueChain(signer: Signer, root: Signer, crlUrl: string | undefined): Promise<PublicIdentity> {
  const rootCertificate = await issueCertificate(root.publicKey, { signer: root }, { commonName: kmsRootCommonName, isCa: true, validityDays: 7300 });
  const certificate = await issueCertificate(
    signer.publicKey,
    { signer: root, certificate: rootCertificate },
    { commonName: kmsSigningCommonName, isCa: false, validityDays: 3650, crlUrl },
  );
  return { certificate, chain: [rootCertificate], keyType: signer.algorithm === "RSASSA_PKCS1_V1_5_SHA_256" ? "RSA" : "EC" };
}

/**
 * createKmsIdentityStore loads an identity whose private keys stay in AWS KMS: the certificate
 * chain comes from the identity files (identity-chain.pem, also what verify publishes), and
 * must certify the KMS key (GetPublicKey), else loading fails naming both fingerprints. At first
 * use, with a root key, Signet issues the chain itself (root self-signed, signing certificate
 * naming the CRL URL), both signed in KMS, stored with create-if-absent so concurrent starts
 * settle on one; the root key then signs the CRL. A failed load is retried on the next call.
 */
export function createKmsIdentityStore(files: IdentityFiles, options: KmsIdentityOptions): SigningIdentityStore {
  async function readChain(): Promise<PublicIdentity | undefined> {
    const bytes = await files.read(certificateChainFileName);
    if (!bytes) return undefined;
    try {
      return parseCertificateChain(bytes.toString("utf8"));
    } catch (error) {
      const reason = error instanceof IdentityFormatError ? error.message : "unreadable";
      throw new SignetError("SERVICE_UNAVAILABLE", `The service's signing certificate cannot be used: ${reason}.`, {
        cause: new Error(`${files.describe(certificateChainFileName)}: ${reason}`, { cause: error }),
      });
    }
  }

  async function loadOnce(): Promise<SigningIdentity> {
    const signer = await options.signer();
    const root = options.root ? await options.root() : undefined;
    let chain = await readChain();
    if (!chain) {
      if (!root) {
        throw new SignetError("SERVICE_UNAVAILABLE", "The service's signing key in AWS KMS has no certificate yet.", {
          cause: new Error(
            `${files.describe(certificateChainFileName)} is missing and no root key is configured (SIGNET_KMS_ROOT_KEY_ID): have a CA certify the key (npm run identity:csr) and install its chain (npm run identity:install-cert)`,
          ),
        });
      }
      await files.createIfAbsent(certificateChainFileName, certificateChainPem(await issueChain(signer, root, options.crlUrl())));
      chain = (await readChain())!;
    }
    try {
      checkCertificateMatches(chain.certificate, signer);
    } catch (error) {
      if (error instanceof KeyMismatchError) throw keyMismatch(error, files.describe(certificateChainFileName));
      throw error;
    }
    const top: X509Certificate = rootCertificate(chain);
    const crlIssuer = root && top.publicKey.equals(root.publicKey) ? { signer: root, certificate: top } : undefined;
    const revocationProblem =
      revocationSources(chain.certificate).length === 0
        ? options.noRevocationHint
        : top.subject === `CN=${kmsRootCommonName}` && !crlIssuer
          ? "B-LT needs a CRL for the signing certificate, and the root key that issued it is not configured (SIGNET_KMS_ROOT_KEY_ID): configure it, or sign at B-T."
          : undefined;
    return {
      signer,
      certificate: chain.certificate,
      chain: chain.chain,
      keyType: chain.keyType,
      ...(crlIssuer ? { crlIssuer } : {}),
      ...(revocationProblem ? { revocationProblem } : {}),
    };
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
