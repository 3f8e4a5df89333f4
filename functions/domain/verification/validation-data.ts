import { X509Certificate } from "node:crypto";
import * as pkijs from "pkijs";
import { PdfArray, PdfStream, type PDF, type PdfRef } from "@libpdf/core";

/** EmbeddedValidationData is what a document's DSS holds (ISO 32000-2 12.8.4.3). */
export interface EmbeddedValidationData {
  certificates: X509Certificate[];
  crls: pkijs.CertificateRevocationList[];
  ocsps: pkijs.BasicOCSPResponse[];
}

/** readDss reads the certificates, CRLs and OCSP responses of the document's DSS (empty without one); unreadable entries are skipped. */
export function readDss(pdf: PDF): EmbeddedValidationData {
  const found: EmbeddedValidationData = { certificates: [], crls: [], ocsps: [] };
  const resolve = (ref: PdfRef) => pdf.getObject(ref);
  const dss = pdf.getCatalog().getDict("DSS", resolve);
  if (!dss) return found;
  const streams = (key: string): Uint8Array[] => {
    const array = dss.getArray(key, resolve);
    if (!(array instanceof PdfArray)) return [];
    const out: Uint8Array[] = [];
    for (let index = 0; index < array.length; index++) {
      const item = array.at(index, resolve);
      if (item instanceof PdfStream) out.push(item.getDecodedData());
    }
    return out;
  };
  for (const der of streams("Certs")) {
    try {
      found.certificates.push(new X509Certificate(der));
    } catch {
      // not a certificate: ignored
    }
  }
  for (const der of streams("CRLs")) {
    try {
      found.crls.push(pkijs.CertificateRevocationList.fromBER(new Uint8Array(der)));
    } catch {
      // not a CRL
    }
  }
  for (const der of streams("OCSPs")) {
    try {
      const response = pkijs.OCSPResponse.fromBER(new Uint8Array(der));
      const bytes = response.responseBytes?.response.valueBlock.valueHexView;
      if (response.responseStatus.valueBlock.valueDec === 0 && bytes) found.ocsps.push(pkijs.BasicOCSPResponse.fromBER(new Uint8Array(bytes)));
    } catch {
      // not an OCSP response
    }
  }
  return found;
}

const pkijsOf = (certificate: X509Certificate) => pkijs.Certificate.fromBER(new Uint8Array(certificate.raw));
const selfSigned = (certificate: X509Certificate) => certificate.subject === certificate.issuer && certificate.checkIssued(certificate);
const subject = (certificate: X509Certificate) => certificate.subject.replace(/\n/g, ", ");
const serialHex = (bytes: ArrayBuffer | Uint8Array) =>
  Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes))
    .toString("hex")
    .replace(/^(00)+/, "")
    .toUpperCase();

/** covered tells whether the DSS holds a good OCSP response or an unrevoking CRL, signed by the issuer, for one certificate. */
async function covered(certificate: X509Certificate, issuer: X509Certificate, data: EmbeddedValidationData): Promise<boolean> {
  const serial = serialHex(pkijsOf(certificate).serialNumber.valueBlock.valueHexView);
  const issuerPkijs = pkijsOf(issuer);
  for (const crl of data.crls) {
    if (!crl.issuer.isEqual(issuerPkijs.subject)) continue;
    if (!(await crl.verify({ issuerCertificate: issuerPkijs }).catch(() => false))) continue;
    const revoked = (crl.revokedCertificates ?? []).some((entry) => serialHex(entry.userCertificate.valueBlock.valueHexView) === serial);
    if (!revoked) return true;
  }
  for (const ocsp of data.ocsps) {
    const single = ocsp.tbsResponseData.responses.find((response) => serialHex(response.certID.serialNumber.valueBlock.valueHexView) === serial);
    // certStatus good is [0] IMPLICIT NULL.
    if (!single || (single.certStatus as { idBlock?: { tagNumber: number } }).idBlock?.tagNumber !== 0) continue;
    const signers = [issuerPkijs, ...(ocsp.certs ?? [])];
    if (await ocsp.verify({ trustedCerts: signers }).catch(() => false)) return true;
  }
  return false;
}

/**
 * offlineProblem says why the embedded validation data does not suffice to validate a chain
 * offline, or undefined when it does: every certificate up to a self-signed root is present (in
 * the CMS or the DSS) and each one below the root has a good OCSP response or a CRL not listing
 * it, signed by its issuer.
 */
export async function offlineProblem(leaf: X509Certificate, embedded: X509Certificate[], data: EmbeddedValidationData): Promise<string | undefined> {
  const pool = [...embedded, ...data.certificates];
  let current = leaf;
  for (let depth = 0; depth < 10; depth++) {
    if (selfSigned(current)) return undefined;
    const issuer = pool.find(
      (candidate) => candidate.fingerprint256 !== current.fingerprint256 && current.checkIssued(candidate) && current.verify(candidate.publicKey),
    );
    if (!issuer) return `the issuer of "${subject(current)}" is not embedded`;
    if (!(await covered(current, issuer, data))) return `no embedded OCSP response or CRL covers "${subject(current)}"`;
    current = issuer;
  }
  return "the certificate chain is too long";
}
