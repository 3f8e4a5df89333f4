import { KeyObject, X509Certificate, createHash, createPrivateKey, randomBytes, webcrypto } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { randomPositiveInteger } from "#domain/pki/der.ts";
import { Pkcs12Error, readPkcs12, type Pkcs12Contents } from "#domain/pki/pkcs12.ts";
import type { CrlIssuer } from "#domain/pki/crl.ts";
import { algorithmIdentifier, keySigner, type Signer } from "#domain/pki/signer.ts";

/** SigningIdentity is the signer (the key, wherever it lives) and certificate chain Signet signs with. */
export interface SigningIdentity {
  /** Signs with the private key, which stays behind it (this process's memory, or AWS KMS). */
  signer: Signer;
  /** The signing certificate. */
  certificate: X509Certificate;
  /** Issuer certificates, nearest first (empty for a self-signed identity). */
  chain: X509Certificate[];
  keyType: "RSA" | "EC";
  /**
   * The root CA that can sign CRLs for the signing certificate: a generated local identity (its
   * root key kept in the data folder) or a KMS identity Signet issued (its root key in KMS).
   */
  crlIssuer?: CrlIssuer | undefined;
  /** Why this identity cannot reach B-LT (no revocation data can exist for it), for the caller asking for it. */
  revocationProblem?: string | undefined;
}

/** KeyFileIdentity is an identity whose private key is in this process (a key file, a generated key). */
export type KeyFileIdentity = SigningIdentity & {
  /** The private key; never logged, never put in an error message. */
  privateKey: KeyObject;
};

/** SigningIdentityStore loads the service's identity, creating one on first use when none exists. */
export interface SigningIdentityStore {
  load(): Promise<SigningIdentity>;
}

/** IdentityFormatError says an identity file is unreadable without quoting any of its content. */
export class IdentityFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IdentityFormatError";
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/**
 * parsePemIdentity reads a PEM bundle holding one private key (PKCS#8, PKCS#1 or SEC1) and the
 * certificate chain, leaf first or in any order: the leaf is the certificate matching the key.
 */
export function parsePemIdentity(pem: string): KeyFileIdentity {
  let privateKey: KeyObject | undefined;
  const certificates: X509Certificate[] = [];
  for (const match of pem.matchAll(PEM_BLOCK)) {
    const label = match[1]!;
    if (label.endsWith("PRIVATE KEY")) {
      if (label === "ENCRYPTED PRIVATE KEY")
        throw new IdentityFormatError("the PEM private key is encrypted; store it unencrypted in the private bucket, or use a P12");
      try {
        privateKey = createPrivateKey(match[0]);
      } catch {
        throw new IdentityFormatError(`the PEM block "${label}" is not a readable private key`);
      }
    } else if (label === "CERTIFICATE") {
      try {
        certificates.push(new X509Certificate(match[0]));
      } catch {
        throw new IdentityFormatError("a PEM CERTIFICATE block is not a readable X.509 certificate");
      }
    }
  }
  if (!privateKey) throw new IdentityFormatError("the PEM bundle holds no private key");
  return assembleIdentity(privateKey, certificates);
}

/** parseP12Identity reads a PKCS#12 (.p12/.pfx) file with its password (pkijs; see pkcs12.ts). */
export async function parseP12Identity(bytes: Uint8Array, password: string): Promise<KeyFileIdentity> {
  let contents: Pkcs12Contents;
  try {
    contents = await readPkcs12(bytes, password);
  } catch (error) {
    const reason = error instanceof Pkcs12Error ? `: ${error.message}` : "";
    throw new IdentityFormatError(`the P12 file could not be opened (wrong password or not a PKCS#12 file)${reason}`);
  }
  return assembleIdentity(contents.privateKey, contents.certificates);
}

function assembleIdentity(privateKey: KeyObject, certificates: X509Certificate[]): KeyFileIdentity {
  const type = privateKey.asymmetricKeyType;
  if (type !== "rsa" && type !== "ec") throw new IdentityFormatError(`keys of type ${type ?? "unknown"} are not supported; use RSA or ECDSA P-256`);
  if (type === "ec" && privateKey.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new IdentityFormatError("only the P-256 curve is supported for ECDSA keys");
  }
  const leaf = certificates.find((certificate) => certificate.checkPrivateKey(privateKey));
  if (!leaf) throw new IdentityFormatError("no certificate in the bundle matches the private key");
  // Order the rest as a chain from the leaf upwards; certificates that are not on the path are dropped.
  const chain: X509Certificate[] = [];
  let current = leaf;
  const rest = certificates.filter((certificate) => certificate !== leaf);
  for (;;) {
    if (current.checkIssued(current)) break;
    const issuer = rest.find((candidate) => !chain.includes(candidate) && current.checkIssued(candidate) && current.verify(candidate.publicKey));
    if (!issuer) break;
    chain.push(issuer);
    current = issuer;
  }
  return { privateKey, signer: keySigner(privateKey, leaf.publicKey), certificate: leaf, chain, keyType: type === "rsa" ? "RSA" : "EC" };
}

/** identityToPem writes an identity as one PEM bundle: the private key, then the chain leaf first. */
export function identityToPem(identity: KeyFileIdentity): string {
  const key = identity.privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  return [key.trim(), identity.certificate.toString().trim(), ...identity.chain.map((certificate) => certificate.toString().trim())].join("\n") + "\n";
}

/** CertificateOptions choose the subject and the extensions of a certificate Signet issues. */
export interface CertificateOptions {
  commonName: string;
  validityDays: number;
  /** Issue a CA certificate (keyCertSign, cRLSign). */
  isCa: boolean;
  /** Extended key usage OIDs (critical when given). */
  extendedKeyUsage?: string[];
  /** A CRL distribution point (RFC 5280 4.2.1.13) to name in the certificate. */
  crlUrl?: string | undefined;
}

/** GenerateIdentityOptions choose the key and the subject of a new self-signed identity. */
export interface GenerateIdentityOptions extends CertificateOptions {
  keyType: "RSA" | "EC";
  /** RSA modulus length. */
  rsaBits: number;
  /** Sign with this identity instead of self-signing. */
  issuer?: Pick<SigningIdentity, "signer" | "certificate" | "chain">;
}

const defaultGenerateOptions: GenerateIdentityOptions = {
  commonName: "Signet Local Signing",
  keyType: "RSA",
  rsaBits: 3072,
  validityDays: 3650,
  isCa: false,
};

function rdn(commonName: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [new pkijs.AttributeTypeAndValue({ type: "2.5.4.3", value: new asn1js.Utf8String({ value: commonName }) })],
  });
}

/** spkiOf reads a public key's SubjectPublicKeyInfo as pkijs sees it. */
function spkiOf(publicKey: KeyObject): pkijs.PublicKeyInfo {
  return pkijs.PublicKeyInfo.fromBER(new Uint8Array(publicKey.export({ type: "spki", format: "der" })));
}

/**
 * issueCertificate writes an X.509 v3 certificate for `publicKey`, signed through `issuer`'s
 * signer (self-signed when the issuer has no certificate: then its signer must hold the
 * subject's key): digitalSignature + nonRepudiation key usage, or keyCertSign + cRLSign for a CA;
 * subject and authority key identifiers. The issuer's key may live in KMS.
 */
export async function issueCertificate(
  publicKey: KeyObject,
  issuer: { signer: Signer; certificate?: X509Certificate | undefined },
  options: Partial<CertificateOptions> = {},
): Promise<X509Certificate> {
  const settings = { ...defaultGenerateOptions, ...options };
  const certificate = new pkijs.Certificate();
  certificate.version = 2;
  const serial = randomPositiveInteger(randomBytes(16));
  certificate.serialNumber = new asn1js.Integer({ valueHex: serial });
  certificate.subject = rdn(settings.commonName);
  const issuerCertificate = issuer.certificate ? pkijs.Certificate.fromBER(issuer.certificate.raw) : undefined;
  certificate.issuer = issuerCertificate ? issuerCertificate.subject : rdn(settings.commonName);
  const now = Date.now();
  certificate.notBefore.value = new Date(now - 60_000);
  certificate.notAfter.value = new Date(now + settings.validityDays * 86_400_000);
  certificate.subjectPublicKeyInfo = spkiOf(publicKey);

  // keyUsage bits: digitalSignature (0), nonRepudiation (1); a CA: keyCertSign (5), cRLSign (6).
  const usage = settings.isCa ? 0b0000_0110 : 0b1100_0000;
  const subjectKeyId = keyIdentifier(certificate.subjectPublicKeyInfo);
  const authorityKeyId = issuerCertificate ? keyIdentifier(issuerCertificate.subjectPublicKeyInfo) : subjectKeyId;
  const extensions = [
    new pkijs.Extension({
      extnID: "2.5.29.19",
      critical: true,
      extnValue: new pkijs.BasicConstraints({ cA: settings.isCa }).toSchema().toBER(false),
    }),
    new pkijs.Extension({
      extnID: "2.5.29.15",
      critical: true,
      extnValue: new asn1js.BitString({ valueHex: new Uint8Array([usage]).buffer, unusedBits: settings.isCa ? 1 : 6 }).toBER(false),
    }),
    new pkijs.Extension({ extnID: "2.5.29.14", critical: false, extnValue: new asn1js.OctetString({ valueHex: subjectKeyId }).toBER(false) }),
    new pkijs.Extension({
      extnID: "2.5.29.35",
      critical: false,
      extnValue: new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: authorityKeyId }) }).toSchema().toBER(false),
    }),
  ];
  if (settings.extendedKeyUsage) {
    extensions.push(
      new pkijs.Extension({
        extnID: "2.5.29.37",
        critical: true,
        extnValue: new pkijs.ExtKeyUsage({ keyPurposes: settings.extendedKeyUsage }).toSchema().toBER(false),
      }),
    );
  }
  if (settings.crlUrl) {
    const point = new pkijs.DistributionPoint({ distributionPoint: [new pkijs.GeneralName({ type: 6, value: settings.crlUrl })] });
    extensions.push(
      new pkijs.Extension({
        extnID: "2.5.29.31",
        critical: false,
        extnValue: new pkijs.CRLDistributionPoints({ distributionPoints: [point] }).toSchema().toBER(false),
      }),
    );
  }
  certificate.extensions = extensions;
  // Signed by hand so sha256WithRSAEncryption carries its NULL parameter (RFC 4055 2.1), which
  // pkijs leaves out and strict validators expect; ECDSA algorithms have no parameters (RFC 5758).
  const signatureAlgorithm = algorithmIdentifier(issuer.signer);
  certificate.signature = signatureAlgorithm;
  certificate.signatureAlgorithm = signatureAlgorithm;
  const tbs = new Uint8Array(certificate.encodeTBS().toBER(false));
  certificate.tbsView = tbs;
  const value = await issuer.signer.sign(Buffer.from(tbs));
  certificate.signatureValue = new asn1js.BitString({ valueHex: new Uint8Array(value) });
  return new X509Certificate(Buffer.from(certificate.toSchema().toBER(false)));
}

/**
 * generateIdentity makes a key pair and an X.509 certificate for it (self-signed unless an issuer
 * is given): digitalSignature + nonRepudiation key usage, SHA-256.
 */
export async function generateIdentity(options: Partial<GenerateIdentityOptions> = {}): Promise<KeyFileIdentity> {
  const settings = { ...defaultGenerateOptions, ...options };
  const algorithm =
    settings.keyType === "RSA"
      ? { name: "RSASSA-PKCS1-v1_5", modulusLength: settings.rsaBits, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }
      : { name: "ECDSA", namedCurve: "P-256" };
  const pair = (await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as webcrypto.CryptoKeyPair;
  const privateKey = KeyObject.from(pair.privateKey as webcrypto.CryptoKey);
  const publicKey = KeyObject.from(pair.publicKey as webcrypto.CryptoKey);
  const signer = keySigner(privateKey, publicKey);
  const { issuer, keyType: _keyType, rsaBits: _rsaBits, ...certificateOptions } = settings;
  const certificate = await issueCertificate(publicKey, issuer ?? { signer }, certificateOptions);
  const issuerChain = issuer ? [issuer.certificate, ...issuer.chain] : [];
  return { privateKey, signer, certificate, chain: issuerChain, keyType: settings.keyType };
}

/** keyIdentifier is the RFC 5280 4.2.1.2 method (1) key identifier: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(spki: pkijs.PublicKeyInfo): ArrayBuffer {
  const digest = createHash("sha1").update(new Uint8Array(spki.subjectPublicKey.valueBlock.valueHexView)).digest();
  return digest.buffer.slice(digest.byteOffset, digest.byteOffset + digest.byteLength) as ArrayBuffer;
}

/** localRootCommonName is the subject CN of a generated local identity's root CA. */
export const localRootCommonName = "Signet Local Root CA";

/**
 * generateLocalIdentity makes the local signing identity: a root CA ("Signet Local Root CA") and
 * a signing certificate it issues, naming `crlUrl` as its CRL distribution point when given.
 * The root is returned too: the caller keeps its key to sign CRLs (locally) or drops it (then the
 * root can issue nothing else, and no revocation data can ever exist for the certificate).
 */
export async function generateLocalIdentity(options: Partial<GenerateIdentityOptions> = {}): Promise<{ identity: KeyFileIdentity; root: KeyFileIdentity }> {
  const { crlUrl, ...rest } = options;
  const root = await generateIdentity({ ...rest, commonName: localRootCommonName, isCa: true, validityDays: 7300 });
  const identity = await generateIdentity({ ...rest, issuer: root, isCa: false, crlUrl });
  return { identity, root };
}

/** rootCertificate is the top of an identity's chain: its root CA, or the certificate itself when self-signed. */
export function rootCertificate(identity: Pick<SigningIdentity, "certificate" | "chain">): X509Certificate {
  return identity.chain.at(-1) ?? identity.certificate;
}

/** describeKey names an identity's algorithm, e.g. "RSA-3072 with SHA-256" or "ECDSA P-256 with SHA-256". */
export function describeKey(identity: Pick<SigningIdentity, "certificate" | "keyType">): string {
  const details = identity.certificate.publicKey.asymmetricKeyDetails;
  if (identity.keyType === "RSA") return `RSA-${details?.modulusLength ?? "?"} with SHA-256`;
  return details?.namedCurve === "secp384r1" ? "ECDSA P-384 with SHA-384" : "ECDSA P-256 with SHA-256";
}
