import { type KeyObject, type X509Certificate, createHash, createPublicKey, sign as signData } from "node:crypto";
import { promisify } from "node:util";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";

// crypto.sign with a callback runs the private-key operation on libuv's thread pool.
const signOffThread = promisify(signData);

/**
 * SignatureAlgorithm names a signing scheme as AWS KMS does. Only schemes CMS and every PDF reader
 * take: RSASSA-PKCS1-v1.5 (RSA-PSS fails in older Acrobat) and ECDSA with the curve's hash.
 */
export type SignatureAlgorithm = "RSASSA_PKCS1_V1_5_SHA_256" | "ECDSA_SHA_256" | "ECDSA_SHA_384";

/** KeyLocation says where a private key lives: in this process (a key file), or in AWS KMS. */
export type KeyLocation = { kind: "file" } | { kind: "kms"; keyArn: string };

/**
 * Signer is the port every signature goes through (CMS signer infos, certificates, CRLs): the
 * private key stays behind it, in this process or in AWS KMS.
 */
export interface Signer {
  readonly algorithm: SignatureAlgorithm;
  /** The public half, to check a certificate against and to size signatures. */
  readonly publicKey: KeyObject;
  readonly location: KeyLocation;
  /** sign hashes `data` with the algorithm's hash and signs the digest; returns the signature (DER for ECDSA). */
  sign(data: Buffer): Promise<Buffer>;
}

/** AlgorithmFacts are what CMS and X.509 need to know of a signature algorithm. */
interface AlgorithmFacts {
  hash: "sha256" | "sha384";
  /** The signatureAlgorithm OID (sha256WithRSAEncryption, ecdsa-with-SHA256/384). */
  oid: string;
  /** sha256WithRSAEncryption carries a NULL parameter (RFC 4055 2.1); ECDSA has none (RFC 5758). */
  nullParameter: boolean;
  keyType: "RSA" | "EC";
}

/** signatureAlgorithms are the facts of each supported algorithm. */
export const signatureAlgorithms: Record<SignatureAlgorithm, AlgorithmFacts> = {
  RSASSA_PKCS1_V1_5_SHA_256: { hash: "sha256", oid: "1.2.840.113549.1.1.11", nullParameter: true, keyType: "RSA" },
  ECDSA_SHA_256: { hash: "sha256", oid: "1.2.840.10045.4.3.2", nullParameter: false, keyType: "EC" },
  ECDSA_SHA_384: { hash: "sha384", oid: "1.2.840.10045.4.3.3", nullParameter: false, keyType: "EC" },
};

/** UnsupportedKeyError says a key is of a kind Signet does not sign with. */
export class UnsupportedKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsupportedKeyError";
  }
}

/** algorithmFor picks the algorithm for a public key: RSA with SHA-256, P-256 with SHA-256, P-384 with SHA-384. */
export function algorithmFor(publicKey: KeyObject): SignatureAlgorithm {
  const type = publicKey.asymmetricKeyType;
  if (type === "rsa") return "RSASSA_PKCS1_V1_5_SHA_256";
  if (type === "ec") {
    const curve = publicKey.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1") return "ECDSA_SHA_256";
    if (curve === "secp384r1") return "ECDSA_SHA_384";
    throw new UnsupportedKeyError(`ECDSA keys on the curve ${curve ?? "unknown"} are not supported; use P-256 or P-384`);
  }
  throw new UnsupportedKeyError(`keys of type ${type ?? "unknown"} are not supported; use RSA or ECDSA P-256/P-384`);
}

/**
 * maxSignatureBytes is the largest signature value the signer can return: the RSA modulus
 * length, or an ECDSA DER SEQUENCE of two integers each one byte over the curve size.
 */
export function maxSignatureBytes(signer: Pick<Signer, "publicKey" | "algorithm">): number {
  const details = signer.publicKey.asymmetricKeyDetails;
  if (signatureAlgorithms[signer.algorithm].keyType === "RSA") return Math.ceil((details?.modulusLength ?? 4096) / 8);
  const size = signer.algorithm === "ECDSA_SHA_384" ? 48 : 32;
  return 2 + 2 * (2 + size + 1);
}

/** keySigner signs with a private key held in this process (a key file, a generated key). */
export function keySigner(privateKey: KeyObject, publicKey: KeyObject = createPublicKey(privateKey)): Signer {
  const algorithm = algorithmFor(publicKey);
  const { hash } = signatureAlgorithms[algorithm];
  return {
    algorithm,
    publicKey,
    location: { kind: "file" },
    // An RSA-3072 signature is about 1.5 ms, which the event loop spends on other requests.
    sign: (data) => signOffThread(hash, data, privateKey),
  };
}

/** publicKeyFingerprint is the SHA-256 of a public key's SubjectPublicKeyInfo DER, as AA:BB:... */
export function publicKeyFingerprint(publicKey: KeyObject): string {
  const digest = createHash("sha256")
    .update(publicKey.export({ type: "spki", format: "der" }))
    .digest("hex")
    .toUpperCase();
  return digest.match(/../g)!.join(":");
}

/** KeyMismatchError says the signing certificate does not certify the key that signs. */
export class KeyMismatchError extends Error {
  constructor(
    readonly certificateKeyFingerprint: string,
    readonly signingKeyFingerprint: string,
  ) {
    super(
      `the signing certificate does not match the signing key: the certificate's public key has the SHA-256 fingerprint ${certificateKeyFingerprint}, the key's ${signingKeyFingerprint}`,
    );
    this.name = "KeyMismatchError";
  }
}

/** checkCertificateMatches throws KeyMismatchError unless the certificate holds the signer's public key. */
export function checkCertificateMatches(certificate: X509Certificate, signer: Pick<Signer, "publicKey">): void {
  if (certificate.publicKey.equals(signer.publicKey)) return;
  throw new KeyMismatchError(publicKeyFingerprint(certificate.publicKey), publicKeyFingerprint(signer.publicKey));
}

/** algorithmIdentifier is the X.509/CRL signatureAlgorithm of a signer (sha256WithRSAEncryption with its NULL, ECDSA without parameters). */
export function algorithmIdentifier(signer: Pick<Signer, "algorithm">): pkijs.AlgorithmIdentifier {
  const facts = signatureAlgorithms[signer.algorithm];
  return new pkijs.AlgorithmIdentifier(facts.nullParameter ? { algorithmId: facts.oid, algorithmParams: new asn1js.Null() } : { algorithmId: facts.oid });
}
