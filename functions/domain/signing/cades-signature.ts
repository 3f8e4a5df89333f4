import { type X509Certificate, createHash } from "node:crypto";
import { children, nullValue, objectIdentifier, octetString, integer, readElement, sequence, setOf, tlv } from "#domain/pki/der.ts";
import { maxSignatureBytes, signatureAlgorithms } from "#domain/pki/signer.ts";
import type { SigningIdentity } from "#domain/signing/signing-identity.ts";
import { oids } from "#domain/pki/oids.ts";

const digestOids = { sha256: oids.sha256, sha384: oids.sha384 } as const;

/** documentHash is the hash a document digest for this identity's signature must use: the signing algorithm's. */
export function documentHash(identity: Pick<SigningIdentity, "signer">): "sha256" | "sha384" {
  return signatureAlgorithms[identity.signer.algorithm].hash;
}

/** Timestamper obtains an RFC 3161 timestamp token over the SHA-256 of some bytes. */
export interface Timestamper {
  /**
   * Returns the DER TimeStampToken (a CMS ContentInfo) whose message imprint is the SHA-256 of
   * `data` (for PAdES B-T: the CMS signature value), checked against `data`.
   */
  timestamp(data: Buffer): Promise<Buffer>;
  /**
   * Returns the DER TimeStampToken over an already computed SHA-256 digest (a PAdES document
   * timestamp: the digest of the signed byte ranges), its imprint and signature checked.
   */
  timestampDigest(digest: Buffer): Promise<Buffer>;
}

/** CertificateIds are the DER pieces of a certificate a CMS signer info refers to. */
interface CertificateIds {
  issuer: Buffer;
  serial: Buffer;
}

const idsCache = new WeakMap<X509Certificate, CertificateIds>();

/** certificateIds reads the issuer Name and serialNumber (as DER) out of a certificate. */
function certificateIds(certificate: X509Certificate): CertificateIds {
  let ids = idsCache.get(certificate);
  if (!ids) {
    const raw = certificate.raw;
    const tbs = children(raw, readElement(raw, 0))[0]!;
    const fields = children(raw, tbs);
    const offset = fields[0]!.tag === 0xa0 ? 1 : 0; // [0] version is optional
    const serial = fields[offset]!;
    const issuer = fields[offset + 2]!;
    ids = { serial: raw.subarray(serial.start, serial.end), issuer: raw.subarray(issuer.start, issuer.end) };
    idsCache.set(certificate, ids);
  }
  return ids;
}

const attribute = (type: string, value: Buffer) => sequence(objectIdentifier(type), setOf(value));

/** signingCertificateV2 builds the ESS signing-certificate-v2 attribute (RFC 5035), SHA-256 (the default, so no algorithm). */
function signingCertificateV2(identity: SigningIdentity): Buffer {
  const { issuer, serial } = certificateIds(identity.certificate);
  const certHash = createHash("sha256").update(identity.certificate.raw).digest();
  const issuerSerial = sequence(sequence(tlv(0xa4, issuer)), serial);
  return attribute(oids.signingCertificateV2, sequence(sequence(sequence(octetString(certHash), issuerSerial))));
}

/** CadesSignature is a CMS SignedData in the making: signed, a timestamp may still be added. */
export interface CadesSignature {
  /** The raw signature value (what an RFC 3161 signature timestamp covers). */
  signatureValue: Buffer;
  /** Adds a signature-time-stamp unsigned attribute. */
  addTimestampToken(token: Buffer): void;
  toDer(): Buffer;
}

/**
 * createCadesSignature signs a document digest (made with documentHash) as a CAdES baseline B-B
 * detached CMS: signed attributes content-type, message-digest and signing-certificate-v2,
 * deliberately no signing-time (PAdES puts the claimed time in the signature dictionary's /M).
 * The signature goes through the identity's signer (a key in this process, or AWS KMS), whose
 * algorithm also decides the digest algorithm; the DER is written directly (a schema library
 * costs more than the rest of a one-page signing).
 */
export async function createCadesSignature(identity: SigningIdentity, documentDigest: Buffer): Promise<CadesSignature> {
  const signedSet = signedAttributes(identity, documentDigest);
  return assemble(identity, signedSet, await identity.signer.sign(signedSet));
}

/**
 * measureCadesSignature is the DER size of a CMS createCadesSignature would make for this
 * identity (without a timestamp), with the largest signature value the key can give: sizing the
 * reserved space costs no signature (no KMS request).
 */
export function measureCadesSignature(identity: SigningIdentity): number {
  const digest = Buffer.alloc(signatureAlgorithms[identity.signer.algorithm].hash === "sha384" ? 48 : 32);
  return assemble(identity, signedAttributes(identity, digest), Buffer.alloc(maxSignatureBytes(identity.signer))).toDer().length;
}

/** signedAttributes is the DER SET OF the signed attributes, which the signature covers. */
function signedAttributes(identity: SigningIdentity, documentDigest: Buffer): Buffer {
  return setOf(
    attribute(oids.contentType, objectIdentifier(oids.data)),
    attribute(oids.messageDigest, octetString(documentDigest)),
    signingCertificateV2(identity),
  );
}

function assemble(identity: SigningIdentity, signedSet: Buffer, signatureValue: Buffer): CadesSignature {
  // The signer info carries the signed attributes as [0] IMPLICIT.
  const signedAttrs = Buffer.concat([Buffer.from([0xa0]), signedSet.subarray(1)]);
  const { issuer, serial } = certificateIds(identity.certificate);
  const facts = signatureAlgorithms[identity.signer.algorithm];
  const algorithm = facts.nullParameter ? sequence(objectIdentifier(facts.oid), nullValue) : sequence(objectIdentifier(facts.oid));
  const digestAlgorithm = sequence(objectIdentifier(digestOids[facts.hash]));
  let unsignedAttrs: Buffer = Buffer.alloc(0);

  return {
    signatureValue,
    addTimestampToken(token) {
      unsignedAttrs = tlv(0xa1, attribute(oids.signatureTimeStampToken, token));
    },
    toDer() {
      const signerInfo = sequence(integer(1), sequence(issuer, serial), digestAlgorithm, signedAttrs, algorithm, octetString(signatureValue), unsignedAttrs);
      const certificates = tlv(0xa0, identity.certificate.raw, ...identity.chain.map((certificate) => certificate.raw));
      const signedData = sequence(integer(1), setOf(digestAlgorithm), sequence(objectIdentifier(oids.data)), certificates, setOf(signerInfo));
      return sequence(objectIdentifier(oids.signedData), tlv(0xa0, signedData));
    },
  };
}
