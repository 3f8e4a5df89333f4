import { createHash } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { algorithmIdentifier, type CrlIssuer } from "#domain/signing/signing-identity.ts";

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
  const keyId = createHash("sha1").update(new Uint8Array(issuerCertificate.subjectPublicKeyInfo.subjectPublicKey.valueBlock.valueHexView)).digest();
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
