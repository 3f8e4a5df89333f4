import { X509Certificate } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { type PDF, PdfDict, PdfRef, PdfString, type RevocationProvider, type TimestampAuthority } from "@libpdf/core";
import type { Timestamper } from "#domain/signing/cades-signature.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { allowIncrementalOnLinearized, beforeIncrementalSave, newObjectsOf } from "#domain/pdf/libpdf-internals.ts";
import { loadPdf } from "#domain/signing/pades-signer.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import type { PdfFile } from "#domain/pdf/pdf-file.ts";
export { resolveLevel, type SignatureLevel } from "#domain/verification/signature-level.ts";

// RFC 5280 and RFC 6960 object identifiers.
const OID = {
  authorityInfoAccess: "1.3.6.1.5.5.7.1.1",
  ocsp: "1.3.6.1.5.5.7.48.1",
  crlDistributionPoints: "2.5.29.31",
  sha1: "1.3.14.3.2.26",
  ocspBasic: "1.3.6.1.5.5.7.48.1.1",
};
const MAX_CRL_BYTES = 10 * 1024 * 1024;
const MAX_OCSP_BYTES = 256 * 1024;

function parse(der: Uint8Array): pkijs.Certificate {
  return pkijs.Certificate.fromBER(new Uint8Array(der));
}

function subjectOf(der: Uint8Array): string {
  return new X509Certificate(der).subject.replace(/\n/g, ", ");
}

/** uriNames lists the http(s) URIs among GeneralNames. */
function uris(names: pkijs.GeneralName[] | undefined): string[] {
  return (names ?? [])
    .filter((name) => name.type === 6 && typeof name.value === "string" && /^https?:\/\//i.test(name.value))
    .map((name) => name.value as string);
}

/** ocspUrl is the certificate's OCSP responder (authority information access), if it names one. */
function ocspUrl(der: Uint8Array): string | undefined {
  const extension = parse(der).extensions?.find((item) => item.extnID === OID.authorityInfoAccess);
  if (!extension) return undefined;
  const access = new pkijs.InfoAccess({ schema: asn1js.fromBER(extension.extnValue.valueBlock.valueHexView).result });
  return uris(access.accessDescriptions.filter((item) => item.accessMethod === OID.ocsp).map((item) => item.accessLocation))[0];
}

/** crlUrls are the certificate's CRL distribution points (full names, http and https). */
function crlUrls(der: Uint8Array): string[] {
  const extension = parse(der).extensions?.find((item) => item.extnID === OID.crlDistributionPoints);
  if (!extension) return [];
  const points = new pkijs.CRLDistributionPoints({ schema: asn1js.fromBER(extension.extnValue.valueBlock.valueHexView).result });
  return points.distributionPoints.flatMap((point) => (Array.isArray(point.distributionPoint) ? uris(point.distributionPoint) : []));
}

/** revocationSources lists where revocation data for a certificate is published: its OCSP responder and CRL distribution points. */
export function revocationSources(certificate: X509Certificate): string[] {
  const der = new Uint8Array(certificate.raw);
  const responder = ocspUrl(der);
  return [...(responder ? [responder] : []), ...crlUrls(der)];
}

function isSelfSigned(der: Uint8Array): boolean {
  const certificate = new X509Certificate(der);
  return certificate.subject === certificate.issuer && certificate.checkIssued(certificate);
}

/**
 * ocspRequestDer builds an unsigned RFC 6960 OCSPRequest for one certificate (SHA-1 CertID, as
 * responders universally accept).
 */
async function ocspRequestDer(certificate: Uint8Array, issuer: Uint8Array): Promise<Buffer> {
  const request = new pkijs.OCSPRequest();
  await request.createForCertificate(parse(certificate), { hashAlgorithm: "SHA-1", issuerCertificate: parse(issuer) });
  return Buffer.from(request.toSchema(true).toBER(false));
}

/**
 * FetchingRevocationProvider gives libpdf's DSS builder OCSP responses (where the certificate
 * names a responder) and CRLs, fetched through the safe fetcher. libpdf turns a provider's
 * failure into a warning; this one also keeps the first failure, so the caller can fail loudly.
 */
class FetchingRevocationProvider implements RevocationProvider {
  failure: unknown;
  // One fetch per URL and document, however many signatures share an issuer.
  private readonly fetched = new Map<string, Promise<Buffer>>();

  constructor(private readonly fetcher: Fetcher) {}

  private get(url: string, maxBytes: number, what: string): Promise<Buffer> {
    let pending = this.fetched.get(url);
    if (!pending) {
      pending = this.fetcher.fetch(url, { maxBytes, what }).then((resource) => resource.bytes);
      this.fetched.set(url, pending);
    }
    return pending;
  }

  async getOCSP(certificate: Uint8Array, issuer: Uint8Array): Promise<Uint8Array | null> {
    const responder = ocspUrl(certificate);
    if (!responder) return null;
    try {
      // RFC 6960 A.1: GET with the base64 request as the last path segment (small, cacheable).
      const request = (await ocspRequestDer(certificate, issuer)).toString("base64");
      const url = `${responder.replace(/\/$/, "")}/${encodeURIComponent(request)}`;
      const bytes = await this.get(url, MAX_OCSP_BYTES, `the OCSP responder ${responder}`);
      const response = pkijs.OCSPResponse.fromBER(new Uint8Array(bytes));
      const status = response.responseStatus.valueBlock.valueDec;
      if (status !== 0 || response.responseBytes?.responseType !== OID.ocspBasic) {
        throw new SignetError("FETCH_FAILED", `The OCSP responder ${responder} answered status ${status}, not a successful basic response.`);
      }
      return new Uint8Array(bytes);
    } catch (error) {
      this.failure ??= error;
      throw error;
    }
  }

  async getCRL(certificate: Uint8Array): Promise<Uint8Array | null> {
    const [url] = crlUrls(certificate);
    if (!url) {
      if (isSelfSigned(certificate) || ocspUrl(certificate)) return null;
      const error = new SignetError(
        "LEVEL_UNAVAILABLE",
        `B-LT needs revocation data, but the certificate "${subjectOf(certificate)}" names no OCSP responder or CRL distribution point.`,
      );
      this.failure ??= error;
      throw error;
    }
    try {
      const bytes = await this.get(url, MAX_CRL_BYTES, `the CRL ${url}`);
      pkijs.CertificateRevocationList.fromBER(new Uint8Array(bytes));
      return new Uint8Array(bytes);
    } catch (error) {
      this.failure ??= error instanceof SignetError ? error : new SignetError("FETCH_FAILED", `The CRL at ${url} is not a readable CRL.`, { cause: error });
      throw error;
    }
  }
}

/**
 * requireCompleteChains refuses CMS structures (signatures, timestamp tokens) whose embedded
 * certificates do not reach a self-signed root: libpdf would then fetch the missing issuers
 * itself (AIA, with the global fetch), outside the safe fetcher.
 */
function requireCompleteChains(cms: Uint8Array): void {
  const content = pkijs.ContentInfo.fromBER(stripPadding(cms));
  const signed = new pkijs.SignedData({ schema: content.content });
  const certificates = (signed.certificates ?? [])
    .filter((item): item is pkijs.Certificate => item instanceof pkijs.Certificate)
    .map((item) => new X509Certificate(Buffer.from(item.toSchema().toBER(false))));
  const [signerInfo] = signed.signerInfos;
  const serial =
    signerInfo?.sid instanceof pkijs.IssuerAndSerialNumber
      ? Buffer.from(signerInfo.sid.serialNumber.valueBlock.valueHexView).toString("hex").toUpperCase().replace(/^0+/, "")
      : undefined;
  let current = certificates.find((item) => item.serialNumber.replace(/^0+/, "") === serial) ?? certificates[0];
  for (let depth = 0; current && depth < 10; depth++) {
    if (current.subject === current.issuer && current.checkIssued(current)) break;
    const issuer = certificates.find((item) => item !== current && current!.checkIssued(item) && current!.verify(item.publicKey));
    if (!issuer) {
      throw new SignetError(
        "LEVEL_UNAVAILABLE",
        `B-LT needs complete certificate chains, but the chain of "${current.subject.replace(/\n/g, ", ")}" embedded in the signature stops before a root.`,
      );
    }
    current = issuer;
  }
  const token = signerInfo?.unsignedAttrs?.attributes.find((attribute) => attribute.type === "1.2.840.113549.1.9.16.2.14")?.values[0];
  if (token) requireCompleteChains(new Uint8Array(token.toBER(false)));
}

function stripPadding(bytes: Uint8Array): Uint8Array {
  // A DER SEQUENCE with a long-form length: the CMS ends where its length says, before /Contents' zero padding.
  const parsed = asn1js.fromBER(bytes);
  return parsed.offset > 0 ? bytes.subarray(0, parsed.offset) : bytes;
}

/** timestampAuthority adapts Signet's timestamper port to libpdf's document-timestamp interface (SHA-256 only). */
function timestampAuthority(timestamper: Timestamper): TimestampAuthority {
  return {
    async timestamp(digest, algorithm) {
      if (algorithm !== "SHA-256") throw new Error(`unexpected digest ${algorithm}`);
      return timestamper.timestampDigest(Buffer.from(digest));
    },
  };
}

/** LongTermOptions say how a signed PDF is extended. */
export interface LongTermOptions {
  /** Fetches OCSP responses and CRLs (the safe fetcher, with its limits). */
  fetcher: Fetcher;
  /** B-LTA: the timestamper for the document timestamp. */
  timestamper?: Timestamper | undefined;
  maxPages?: number | undefined;
  /** The password of an encrypted PDF (none: the empty user password); the updates are encrypted with the document's key. */
  password?: string | undefined;
}

// A document timestamp token: the TSA's signature and its certificates (the chain, in practice a few KB).
const DOCUMENT_TIMESTAMP_BYTES = 16_384;

/** signedContents lists the /Contents (CMS) of every signed field of the input, read from its PdfFile. */
function signedContents(file: PdfFile): Uint8Array[] {
  return readForm(file.latest).fields.flatMap((field) => {
    const contents = field.signature?.dict.get("Contents");
    return contents instanceof PdfString ? [contents.bytes] : [];
  });
}

/**
 * indirectVriEntries makes each /VRI entry of a DSS that libpdf writes an indirect object: the one
 * the document's DSS already held under that key, else a new one (libpdf rebuilds the whole DSS,
 * every entry direct). pyHanko writes them so, and its difference analysis compares an earlier
 * entry with its successor by reference; direct entries of an encrypted document never compare
 * equal in pyHanko 0.20.1, so a second DSS update (B-LTA, a renewal) would be a change nothing explains.
 */
function indirectVriEntries(pdf: PDF): void {
  const resolve = (ref: PdfRef) => pdf.getObject(ref);
  const earlier = new Map<string, PdfRef>();
  for (const [key, value] of pdf.getCatalog().getDict("DSS", resolve)?.getDict("VRI", resolve) ?? []) {
    if (value instanceof PdfRef) earlier.set(key.value, value);
  }
  beforeIncrementalSave(pdf, () => {
    const dss = pdf.getCatalog().getDict("DSS", resolve);
    // Only a DSS this update writes: an earlier one stays as it is.
    if (!dss || ![...newObjectsOf(pdf).values()].includes(dss)) return;
    const vri = dss.getDict("VRI", resolve);
    for (const [key, value] of vri ? [...vri] : []) {
      if (value instanceof PdfDict) vri!.set(key.value, earlier.get(key.value) ?? pdf.register(value));
    }
  });
}

/**
 * openForUpdate opens a signed PDF (with its password when encrypted) for one libpdf update. Each
 * update gets a fresh open: libpdf reloads its own output without the password, after which it
 * neither reads nor encrypts a user-password file.
 */
async function openForUpdate(bytes: Uint8Array, options: LongTermOptions): Promise<{ pdf: PDF; file: PdfFile }> {
  const opened = await loadPdf(bytes, options.maxPages, options.password);
  allowIncrementalOnLinearized(opened.pdf);
  indirectVriEntries(opened.pdf);
  return opened;
}

/**
 * addValidationData appends a DSS (ISO 32000-2 12.8.4.3) with the certificates of every
 * signature's and timestamp's chain, their OCSP responses or CRLs, and VRI entries, as an
 * incremental update (B-T to B-LT). With a timestamper it then adds a document timestamp
 * (SubFilter ETSI.RFC3161) over the whole file and a second DSS update with the TSA's own
 * validation data (B-LTA). Any missing piece fails: a document never claims a level it lacks.
 */
export async function addLongTermValidation(signed: Buffer, options: LongTermOptions): Promise<Buffer> {
  const { pdf, file } = await openForUpdate(signed, options);
  for (const contents of signedContents(file)) requireCompleteChains(contents);
  const provider = new FetchingRevocationProvider(options.fetcher);
  const check = (warnings: { code: string; message: string }[]) => {
    if (provider.failure) throw provider.failure;
    const serious = warnings.find((warning) => warning.code !== "MDP_VIOLATION");
    if (serious) throw new SignetError("LEVEL_UNAVAILABLE", `The validation data is incomplete: ${serious.message}.`);
  };
  const validation = await pdf.addValidationData({ revocationProvider: provider });
  check(validation.warnings);
  if (!options.timestamper) return Buffer.from(validation.bytes);
  const timestamped = await (await openForUpdate(validation.bytes, options)).pdf.addTimestamp({
    timestampAuthority: timestampAuthority(options.timestamper),
    estimatedSize: DOCUMENT_TIMESTAMP_BYTES,
  });
  check(timestamped.warnings);
  const sealing = await openForUpdate(timestamped.bytes, options);
  // The token's chain must be complete before libpdf gathers its validation data.
  const latest = signedContents(sealing.file).at(-1);
  if (latest) requireCompleteChains(latest);
  const sealed = await sealing.pdf.addValidationData({ revocationProvider: provider });
  check(sealed.warnings);
  return Buffer.from(sealed.bytes);
}
