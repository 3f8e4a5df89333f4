import { createHash } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import type { X509Certificate } from "node:crypto";
import { algorithmIdentifier, type Signer } from "#domain/pki/signer.ts";

/** CrlIssuer is a CA's signer and certificate: it signs CRLs (and certificates). */
export interface CrlIssuer {
  signer: Signer;
  certificate: X509Certificate;
}

/** CrlOptions set a CRL's time window. */
export interface CrlOptions {
  /** thisUpdate. */
  now: Date;
  /** nextUpdate is this many days after thisUpdate. */
  validityDays: number;
}

const defaultCrlOptions = { validityDays: 7 };

/**
 * issueCrl signs an empty RFC 5280 v2 CRL for the issuer (nothing Signet issued is revoked):
 * thisUpdate now, nextUpdate `validityDays` later, the issuer's key identifier, and a CRL number
 * that grows with time (seconds since 1970), so a newer CRL always has the higher number.
 * Signed through the issuer's signer (the local root key, or the root key in KMS). Returns the DER.
 */
export async function issueCrl(issuer: CrlIssuer, options: Partial<CrlOptions> & Pick<CrlOptions, "now">): Promise<Buffer> {
  const { now, validityDays } = { ...defaultCrlOptions, ...options };
  const issuerCertificate = pkijs.Certificate.fromBER(new Uint8Array(issuer.certificate.raw));
  const keyId = issuerKeyId(issuerCertificate);
  const crl = new pkijs.CertificateRevocationList();
  crl.version = 1; // v2: it carries extensions
  crl.issuer = issuerCertificate.subject;
  crl.thisUpdate = new pkijs.Time({ type: 0, value: now });
  crl.nextUpdate = new pkijs.Time({ type: 0, value: new Date(now.getTime() + validityDays * 86_400_000) });
  crl.crlExtensions = new pkijs.Extensions({
    extensions: [
      new pkijs.Extension({
        extnID: "2.5.29.35",
        critical: false,
        extnValue: new pkijs.AuthorityKeyIdentifier({ keyIdentifier: new asn1js.OctetString({ valueHex: new Uint8Array(keyId) }) }).toSchema().toBER(false),
      }),
      new pkijs.Extension({
        extnID: "2.5.29.20",
        critical: false,
        extnValue: new asn1js.Integer({ value: Math.floor(now.getTime() / 1000) }).toBER(false),
      }),
    ],
  });
  // Signed by hand, as the certificates are (signing-identity.ts): sha256WithRSAEncryption with its NULL parameter.
  const algorithm = algorithmIdentifier(issuer.signer);
  crl.signature = algorithm;
  crl.signatureAlgorithm = algorithm;
  const tbs = new Uint8Array((crl as unknown as { encodeTBS(): asn1js.Sequence }).encodeTBS().toBER(false));
  crl.tbsView = tbs;
  const value = await issuer.signer.sign(Buffer.from(tbs));
  crl.signatureValue = new asn1js.BitString({ valueHex: new Uint8Array(value) });
  return Buffer.from(crl.toSchema().toBER(false));
}

/** issuerKeyId is the key identifier a CRL of this CA names (SHA-1 of its public key bits, RFC 5280 4.2.1.2 method 1). */
function issuerKeyId(certificate: pkijs.Certificate): Buffer {
  return createHash("sha1").update(new Uint8Array(certificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)).digest();
}

/** CrlFacts are what keeping and serving a CRL needs from it. */
export interface CrlFacts {
  thisUpdate: Date;
  nextUpdate: Date;
  /** The authority key identifier it names (hex), to tell whose CRL it is. */
  authorityKeyId: string;
  /** The CRL's revoked serial numbers (hex): what else changes its content. */
  revoked: string[];
}

/** readCrl reads a DER CRL's times, issuer key and revoked serials; undefined when it is not a readable CRL with a nextUpdate. */
export function readCrl(der: Buffer): CrlFacts | undefined {
  try {
    const crl = pkijs.CertificateRevocationList.fromBER(new Uint8Array(der));
    if (!crl.nextUpdate) return undefined;
    const aki = crl.crlExtensions?.extensions.find((extension) => extension.extnID === "2.5.29.35");
    const keyId = (aki?.parsedValue as pkijs.AuthorityKeyIdentifier | undefined)?.keyIdentifier?.valueBlock.valueHexView;
    return {
      thisUpdate: crl.thisUpdate.value,
      nextUpdate: crl.nextUpdate.value,
      authorityKeyId: keyId ? Buffer.from(keyId).toString("hex") : "",
      revoked: (crl.revokedCertificates ?? []).map((entry) => Buffer.from(entry.userCertificate.valueBlock.valueHexView).toString("hex")),
    };
  } catch {
    return undefined;
  }
}

/** crlKeyIdOf is the authority key identifier (hex) a CRL issued by this CA certificate names. */
export function crlKeyIdOf(certificate: X509Certificate): string {
  return issuerKeyId(pkijs.Certificate.fromBER(new Uint8Array(certificate.raw))).toString("hex");
}
