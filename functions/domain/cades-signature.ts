import { createHash, sign as signData } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { SigningIdentity } from "#domain/signing-identity.ts";

/** oids used in CMS / CAdES structures. */
export const oids = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  contentType: "1.2.840.113549.1.9.3",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
  signingCertificateV2: "1.2.840.113549.1.9.16.2.47",
  signatureTimeStampToken: "1.2.840.113549.1.9.16.2.14",
  tstInfo: "1.2.840.113549.1.9.16.1.4",
  sha1: "1.3.14.3.2.26",
  sha256: "2.16.840.1.101.3.4.2.1",
  sha384: "2.16.840.1.101.3.4.2.2",
  sha512: "2.16.840.1.101.3.4.2.3",
  rsaEncryption: "1.2.840.113549.1.1.1",
  sha256WithRsa: "1.2.840.113549.1.1.11",
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
} as const;

/** Timestamper obtains an RFC 3161 timestamp token for a SHA-256 message imprint. */
export interface Timestamper {
  /** Returns the DER TimeStampToken (a CMS ContentInfo) over `imprint`. */
  timestamp(imprint: Buffer): Promise<Buffer>;
}

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** signingCertificateV2 builds the ESS signing-certificate-v2 attribute (RFC 5035), SHA-256 by default. */
function signingCertificateV2(identity: SigningIdentity): pkijs.Attribute {
  const certificate = pkijs.Certificate.fromBER(identity.certificate.raw);
  const issuerSerial = new pkijs.IssuerSerial({
    issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: certificate.issuer })] }),
    serialNumber: certificate.serialNumber,
  });
  const certHash = createHash("sha256").update(identity.certificate.raw).digest();
  const essCertIdV2 = new asn1js.Sequence({ value: [new asn1js.OctetString({ valueHex: toArrayBuffer(certHash) }), issuerSerial.toSchema()] });
  return new pkijs.Attribute({
    type: oids.signingCertificateV2,
    values: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [essCertIdV2] })] })],
  });
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
 * createCadesSignature signs a document digest as a CAdES baseline B-B detached CMS: signed
 * attributes content-type, message-digest and signing-certificate-v2, deliberately no
 * signing-time (PAdES puts the claimed time in the signature dictionary's /M). The private-key
 * operation is node's native crypto.
 */
export function createCadesSignature(identity: SigningIdentity, documentDigest: Buffer): CadesSignature {
  const signedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    attributes: [
      new pkijs.Attribute({ type: oids.contentType, values: [new asn1js.ObjectIdentifier({ value: oids.data })] }),
      new pkijs.Attribute({ type: oids.messageDigest, values: [new asn1js.OctetString({ valueHex: toArrayBuffer(documentDigest) })] }),
      signingCertificateV2(identity),
    ],
  });
  // The signature covers the DER SET OF the attributes: the [0] IMPLICIT tag is replaced by SET.
  const encoded = Buffer.from(signedAttrs.toSchema().toBER(false));
  encoded[0] = 0x31;
  const signatureValue = signData("sha256", encoded, identity.privateKey);

  const certificate = pkijs.Certificate.fromBER(identity.certificate.raw);
  const signerInfo = new pkijs.SignerInfo({
    version: 1,
    sid: new pkijs.IssuerAndSerialNumber({ issuer: certificate.issuer, serialNumber: certificate.serialNumber }),
    digestAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: oids.sha256 }),
    signedAttrs,
    signatureAlgorithm:
      identity.keyType === "RSA"
        ? new pkijs.AlgorithmIdentifier({ algorithmId: oids.sha256WithRsa, algorithmParams: new asn1js.Null() })
        : new pkijs.AlgorithmIdentifier({ algorithmId: oids.ecdsaWithSha256 }),
    signature: new asn1js.OctetString({ valueHex: toArrayBuffer(signatureValue) }),
  });
  const signedData = new pkijs.SignedData({
    version: 1,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: oids.data }),
    digestAlgorithms: [new pkijs.AlgorithmIdentifier({ algorithmId: oids.sha256 })],
    certificates: [certificate, ...identity.chain.map((issuer) => pkijs.Certificate.fromBER(issuer.raw))],
    signerInfos: [signerInfo],
  });

  return {
    signatureValue,
    addTimestampToken(token) {
      const parsed = asn1js.fromBER(toArrayBuffer(token));
      if (parsed.offset === -1) throw new Error("the timestamp token is not DER");
      signerInfo.unsignedAttrs = new pkijs.SignedAndUnsignedAttributes({
        type: 1,
        attributes: [new pkijs.Attribute({ type: oids.signatureTimeStampToken, values: [parsed.result] })],
      });
    },
    toDer() {
      const contentInfo = new pkijs.ContentInfo({ contentType: oids.signedData, content: signedData.toSchema(true) });
      return Buffer.from(contentInfo.toSchema().toBER(false));
    },
  };
}
