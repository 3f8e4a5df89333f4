import { X509Certificate, constants, createHash, verify as verifySignature } from "node:crypto";
import type * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { PdfArray, type PdfDict, PdfName, PdfNumber, type PdfRef, PdfString } from "@libpdf/core";
import { checkPadding, SignatureBytesError, SignatureLocator } from "#domain/verification/signature-dictionary.ts";
import type { PdfFile, PdfView } from "#domain/pdf/pdf-file.ts";
import { readForm } from "#domain/pdf/acroform.ts";
import { readCertification } from "#domain/pdf/docmdp.ts";
import { type SignatureLock, signatureLock, strictestPermission } from "#domain/pdf/field-lock.ts";
import { RevisionError } from "#domain/pdf/revisions.ts";
import { oids } from "#domain/pki/oids.ts";
import { children, readElement } from "#domain/pki/der.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { analyseModifications, permitted, RevisionHistory, type ModificationLevel } from "#domain/verification/modification-analysis.ts";
import { readTimestampToken, verifyTimestampToken } from "#domain/pki/rfc3161.ts";
import type { SignatureReport, SignerSummary, TimestampReport, VerifyReport } from "#domain/verification/verify-report.ts";
import { offlineProblem, readDss } from "#domain/verification/validation-data.ts";

/**
 * CheckedSignature is one signature while the verifier works on it: its report and what does not
 * go out (the e-mail the signer summary shows, why it is broken, where its signed bytes end, the
 * chains to check against the DSS).
 */
interface CheckedSignature extends SignatureReport {
  signerEmail: string | null;
  /** Why integrity is broken (for the report's reason). */
  problem?: string;
  /** Why the modification level is "other". */
  modificationProblem?: string;
  /** Where the signed bytes end. */
  signedEnd?: number;
  /** The certificate chains to check against the DSS: the signer's, its timestamp's. */
  chains?: Array<{ leaf: X509Certificate; embedded: X509Certificate[] }>;
}

const hashNames: Record<string, string> = {
  [oids.sha1]: "sha1",
  [oids.sha256]: "sha256",
  [oids.sha384]: "sha384",
  [oids.sha512]: "sha512",
};

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

class BrokenSignatureError extends Error {}

/**
 * MAX_SIGNATURES caps the signatures one verification examines: /v1/verify needs no key, and each
 * signature costs a CMS parse and a public-key operation. Real documents carry a handful.
 */
export const MAX_SIGNATURES = 100;

/**
 * RangeDigests hashes the signed byte ranges of one file, once per (algorithm, ranges): many
 * signature dictionaries pointing at the same whole-file /ByteRange cost one pass over the file.
 */
export class RangeDigests {
  private readonly cache = new Map<string, Buffer>();
  /** How many digests were actually computed (the rest came from the cache). */
  computed = 0;

  constructor(private readonly bytes: Buffer) {}

  digest(hash: string, firstLength: number, secondStart: number, signedEnd: number): Buffer {
    const key = `${hash}:${firstLength}:${secondStart}:${signedEnd}`;
    let digest = this.cache.get(key);
    if (!digest) {
      digest = createHash(hash).update(this.bytes.subarray(0, firstLength)).update(this.bytes.subarray(secondStart, signedEnd)).digest();
      this.cache.set(key, digest);
      this.computed++;
    }
    return digest;
  }
}

function subjectLine(certificate: X509Certificate): string {
  return certificate.subject.split("\n").join(", ");
}

function commonName(certificate: X509Certificate): string | null {
  return /(?:^|\n)CN=([^\n]*)/.exec(certificate.subject)?.[1] ?? null;
}

function emailOf(certificate: X509Certificate, contactInfo: string | null): string | null {
  const fromSubject = /(?:^|\n)emailAddress=([^\n]*)/.exec(certificate.subject)?.[1];
  const fromSan = /email:([^,\s]+)/.exec(certificate.subjectAltName ?? "")?.[1];
  const fromContact = contactInfo && /^[^\s@]+@[^\s@]+$/.test(contactInfo) ? contactInfo : undefined;
  return fromSubject ?? fromSan ?? fromContact ?? null;
}

/** pdfDateToIso reads a PDF date (D:YYYYMMDDHHmmSSOHH'mm) as ISO-8601. */
function pdfDateToIso(value: string): string | null {
  const match = /^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?/.exec(value.trim());
  if (!match) return null;
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", sign, oh = "00", om = "00"] = match;
  let time = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (sign === "+" || sign === "-") time -= (sign === "+" ? 1 : -1) * (Number(oh) * 60 + Number(om)) * 60_000;
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** rawSignedAttributes returns the signer info's signed attributes re-tagged as the SET they were signed as. */
function rawSignedAttributes(der: Uint8Array): Buffer | undefined {
  const contentInfo = readElement(der, 0);
  const explicit = children(der, contentInfo)[1]!;
  const signedData = children(der, explicit)[0]!;
  const signerInfos = children(der, signedData).at(-1)!;
  const signerInfo = children(der, signerInfos)[0]!;
  const attrs = children(der, signerInfo).find((element) => element.tag === 0xa0);
  if (!attrs) return undefined;
  const raw = Buffer.from(der.subarray(attrs.start, attrs.end));
  raw[0] = 0x31;
  return raw;
}

function findSignerCertificate(signedData: pkijs.SignedData, signerInfo: pkijs.SignerInfo): X509Certificate {
  const certificates = (signedData.certificates ?? []).filter((certificate): certificate is pkijs.Certificate => certificate instanceof pkijs.Certificate);
  const sid = signerInfo.sid as pkijs.IssuerAndSerialNumber | asn1js.OctetString;
  const match = certificates.find((certificate) => {
    if (sid instanceof pkijs.IssuerAndSerialNumber) return certificate.issuer.isEqual(sid.issuer) && certificate.serialNumber.isEqual(sid.serialNumber);
    const keyId = certificate.extensions?.find((extension) => extension.extnID === "2.5.29.14");
    return keyId ? Buffer.from(keyId.extnValue.valueBlock.valueHexView).includes(Buffer.from(sid.valueBlock.valueHexView)) : false;
  });
  if (!match) throw new BrokenSignatureError("the signer's certificate is not in the signature");
  return new X509Certificate(Buffer.from(match.toSchema().toBER(false)));
}

function verifyValue(algorithmOid: string, hash: string, data: Buffer, certificate: X509Certificate, signature: Buffer): boolean {
  if (algorithmOid === "1.2.840.113549.1.1.10") {
    return verifySignature(
      hash,
      data,
      { key: certificate.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO },
      signature,
    );
  }
  return verifySignature(hash, data, certificate.publicKey, signature);
}

function attributeValue(signerInfo: pkijs.SignerInfo, type: string, unsigned = false): unknown {
  const attributes = (unsigned ? signerInfo.unsignedAttrs : signerInfo.signedAttrs)?.attributes ?? [];
  return attributes.find((attribute) => attribute.type === type)?.values[0];
}

/** TrustStore answers whether a certificate chains to a trusted certificate. */
export interface TrustStore {
  anchors: X509Certificate[];
}

/** isTrusted walks issuer links (through the certificates in the CMS) up to an anchor. */
function isTrusted(certificate: X509Certificate, intermediates: X509Certificate[], trust: TrustStore): boolean {
  const anchorPrints = new Set(trust.anchors.map((anchor) => anchor.fingerprint256));
  const pool = [...intermediates, ...trust.anchors];
  let current = certificate;
  for (let depth = 0; depth < 8; depth++) {
    if (anchorPrints.has(current.fingerprint256)) return true;
    const issuer = pool.find(
      (candidate) => candidate.fingerprint256 !== current.fingerprint256 && current.checkIssued(candidate) && current.verify(candidate.publicKey),
    );
    if (!issuer) return false;
    current = issuer;
  }
  return false;
}

// Annotation flags (ISO 32000-1 table 165): Hidden (2) and NoView (32) keep a widget off the screen.
const HIDDEN_OR_NO_VIEW = 2 | 32;

interface SignatureDictionary {
  field: string;
  dict: PdfDict;
  /** The indirect reference the field's /V holds (a signature dictionary must be one). */
  ref: PdfRef | undefined;
  /** DocMDP permission when this is the document's certification signature. */
  docMdp?: number | undefined;
  /** A widget of the field shows on a page: it has an area and is neither hidden nor no-view. */
  visible: boolean;
  /** The fields this signature locks (the FieldMDP transform in its /Reference) and the DocMDP permission its lock sets. */
  lock?: SignatureLock | undefined;
}

/**
 * signatureDictionaries lists the signed signature fields of a revision (the form reader,
 * acroform.ts). Only the signature the catalog's /Perms /DocMDP names is a certification, with the
 * permission of its own DocMDP /Reference (docmdp.ts): a /Reference in any other signature
 * dictionary (one an attacker added, say) permits nothing.
 */
function signatureDictionaries(view: PdfView): SignatureDictionary[] {
  const certification = readCertification(view);
  const found: SignatureDictionary[] = [];
  for (const field of readForm(view).fields) {
    if (!field.signature) continue;
    const { ref, dict } = field.signature;
    const certifies = ref !== undefined && certification?.ref !== undefined && sameRef(ref, certification.ref);
    const visible = field.widgets.some((widget) => widget.visible && ((widget.dict.getNumber("F")?.value ?? 0) & HIDDEN_OR_NO_VIEW) === 0);
    const lock = signatureLock(view, field);
    found.push({ field: field.name, dict, ref, docMdp: certifies ? certification.permission : undefined, visible, ...(lock ? { lock } : {}) });
  }
  return found;
}

/** readSignatures is signatureDictionaries where an object the form needs does not read (422: the document is damaged). */
function readSignatures(view: PdfView): SignatureDictionary[] {
  try {
    return signatureDictionaries(view);
  } catch (error) {
    if (!(error instanceof RevisionError)) throw error;
    throw new SignetError("INVALID_DOCUMENT", "The PDF could not be read; it looks damaged. Open and re-save it, then send it again.", { cause: error });
  }
}

const sameRef = (a: PdfRef, b: PdfRef) => a.objectNumber === b.objectNumber && a.generation === b.generation;

/** EarlierSignature is a signature a document already holds, as its own dictionary states it. */
export interface EarlierSignature {
  signer: string;
  signedAt?: Date | undefined;
}

/**
 * listSignatures names the signatures a PDF already holds, in form order: the signer from /Name,
 * else the CMS signer certificate's common name, and the time the signature's /M claims. Nothing
 * is verified here (that is verifySignatures' work).
 */
export function listSignatures(view: PdfView): EarlierSignature[] {
  return signatureDictionaries(view).map(({ dict }) => {
    const report = { signerName: text(dict, "Name"), signerEmail: null, certificateSubject: "", fingerprint: "" } as CheckedSignature;
    if (!report.signerName) describeSigner(report, dict.get("Contents"), true);
    const claimed = text(dict, "M");
    const iso = claimed ? pdfDateToIso(claimed) : null;
    return { signer: report.signerName ?? "", ...(iso ? { signedAt: new Date(iso) } : {}) };
  });
}

function text(dict: PdfDict, key: string): string | null {
  const value = dict.get(key);
  if (value instanceof PdfString) return value.asString();
  if (value instanceof PdfName) return value.value;
  return null;
}

/**
 * checkTimestamp reports on a signature timestamp token: the TSA's signature and certificate are
 * checked before its time or imprint are believed.
 */
async function checkTimestamp(token: Uint8Array, signatureValue: Buffer): Promise<TimestampReport> {
  let claimed: ReturnType<typeof readTimestampToken>;
  try {
    claimed = readTimestampToken(token);
  } catch {
    return { time: null, authority: null, imprintValid: false, tokenValid: false, problem: "the timestamp token is not a readable RFC 3161 token" };
  }
  const hash = hashNames[claimed.imprintAlgorithm];
  const imprintMatches = hash !== undefined && createHash(hash).update(signatureValue).digest().equals(claimed.imprint);
  try {
    const verified = await verifyTimestampToken(token, signatureValue);
    return { time: verified.genTime.toISOString(), authority: verified.authority ?? null, imprintValid: imprintMatches, tokenValid: true };
  } catch (error) {
    const problem = imprintMatches ? (error as Error).message : "the timestamp token covers a different signature value";
    return { time: null, authority: claimed.authority ?? null, imprintValid: false, tokenValid: false, problem };
  }
}

/** tokenChain is the signer certificate and the certificates a timestamp token carries, when it parses. */
function tokenChain(token: Uint8Array): { leaf: X509Certificate; embedded: X509Certificate[] } | undefined {
  try {
    const signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(toArrayBuffer(token)).content });
    const leaf = findSignerCertificate(signedData, signedData.signerInfos[0]!);
    const embedded = (signedData.certificates ?? [])
      .filter((item): item is pkijs.Certificate => item instanceof pkijs.Certificate)
      .map((item) => new X509Certificate(Buffer.from(item.toSchema().toBER(false))));
    return { leaf, embedded };
  } catch {
    return undefined;
  }
}

/**
 * checkDocumentTimestamp checks a document timestamp (ETSI.RFC3161): the token's imprint is the
 * digest of the signed byte ranges and the TSA's signature over it verifies. A failure is a broken
 * signature: the timestamp is what vouches for the bytes.
 */
async function checkDocumentTimestamp(
  der: Buffer,
  digests: RangeDigests,
  firstLength: number,
  secondStart: number,
  signedEnd: number,
): Promise<TimestampReport> {
  const claimed = readTimestampToken(der);
  const hash = hashNames[claimed.imprintAlgorithm];
  if (!hash) throw new BrokenSignatureError(`the document timestamp's digest algorithm ${claimed.imprintAlgorithm} is not supported`);
  const digest = digests.digest(hash, firstLength, secondStart, signedEnd);
  if (!claimed.imprint.equals(digest)) throw new BrokenSignatureError("the document timestamp covers different bytes: the signed bytes were changed");
  try {
    const verified = await verifyTimestampToken(der, { digest });
    return { time: verified.genTime.toISOString(), authority: verified.authority ?? null, imprintValid: true, tokenValid: true };
  } catch (error) {
    throw new BrokenSignatureError(`the document timestamp does not verify (${(error as Error).message})`);
  }
}

/**
 * assignLevels sets each intact signature's PAdES level: B-B, B-T with a verified timestamp, B-LT
 * when the document has a DSS, B-LTA when a valid document timestamp follows it; with a DSS, it
 * also says whether the embedded data validates the signer's and the TSA's chains offline.
 */
async function assignLevels(view: PdfView, reports: CheckedSignature[]): Promise<void> {
  const dss = readDss(view);
  const hasDss = dss.certificates.length + dss.crls.length + dss.ocsps.length > 0;
  const stamps = reports.filter((report) => report.documentTimestamp && report.integrity === "ok");
  for (const report of reports) {
    if (report.integrity !== "ok") continue;
    const pades = report.subFilter === "ETSI.CAdES.detached";
    if (pades) report.level = report.timestamp?.tokenValid ? "B-T" : "B-B";
    if (!hasDss || (pades && report.level === "B-B")) continue;
    let problem: string | undefined;
    for (const chain of report.chains ?? []) problem ??= await offlineProblem(chain.leaf, chain.embedded, dss);
    report.validationData = problem ? { offline: false, problem } : { offline: true };
    if (!pades) continue;
    report.level = stamps.some((stamp) => (stamp.signedEnd ?? 0) > (report.signedEnd ?? 0)) ? "B-LTA" : "B-LT";
  }
}

/** describeSigner fills in the signer certificate from a /Contents value when its CMS parses (for a report on a broken signature; with `named`, also the signer from its common name). */
function describeSigner(report: SignatureReport, contents: unknown, named = false): void {
  if (!(contents instanceof PdfString)) return;
  try {
    const der = Buffer.from(contents.bytes);
    const signedData = new pkijs.SignedData({ schema: pkijs.ContentInfo.fromBER(toArrayBuffer(der.subarray(0, readElement(der, 0).end))).content });
    const certificate = findSignerCertificate(signedData, signedData.signerInfos[0]!);
    report.certificateSubject = subjectLine(certificate);
    report.fingerprint = certificate.fingerprint256;
    if (named) report.signerName ??= commonName(certificate);
  } catch {
    // Not a readable CMS: the report keeps the fields empty.
  }
}

/** newReport is a signature's report before anything is checked: broken until proven intact, nothing vouched for. */
function newReport(entry: SignatureDictionary, subFilter: string): CheckedSignature {
  return {
    field: entry.field,
    visible: entry.visible,
    subFilter,
    signerName: null,
    signerEmail: null,
    certificateSubject: "",
    fingerprint: "",
    signingTime: null,
    coversWholeDocument: false,
    integrity: "broken",
    trusted: false,
    modifiedAfter: false,
    modificationLevel: "none",
    changesPermitted: true,
    level: null,
    documentTimestamp: subFilter === "ETSI.RFC3161",
  };
}

/** SignedRange is what a /ByteRange says: the bytes before the gap, where the second range starts, where the signed bytes end. */
interface SignedRange {
  firstLength: number;
  secondStart: number;
  signedEnd: number;
}

/** readByteRange reads a /ByteRange that is four non-negative integers starting at 0 and fitting the file. */
function readByteRange(dict: PdfDict, fileLength: number): SignedRange {
  const range = dict.get("ByteRange");
  const numbers = range instanceof PdfArray ? range.toArray().map((item) => (item instanceof PdfNumber ? item.value : Number.NaN)) : [];
  const [start, firstLength, secondStart, secondLength] = numbers as [number, number, number, number];
  if (numbers.length !== 4 || numbers.some((value) => !Number.isInteger(value) || value < 0)) throw new BrokenSignatureError("the /ByteRange is malformed");
  const signedEnd = secondStart + secondLength;
  if (start !== 0 || secondStart <= firstLength || signedEnd > fileLength) throw new BrokenSignatureError("the /ByteRange does not fit the file");
  return { firstLength, secondStart, signedEnd };
}

/** recordModifications sets what the updates after the signed bytes changed. */
async function recordModifications(report: CheckedSignature, history: RevisionHistory, signedEnd: number, entry: SignatureDictionary): Promise<void> {
  if (!report.modifiedAfter) return;
  // A lock's /P limits what follows its signature as a certification does (no new visible signature field).
  const analysis = await analyseModifications(history, signedEnd, entry.docMdp ?? entry.lock?.permission, entry.lock?.lock);
  report.modificationLevel = analysis.level;
  if (analysis.problem) report.modificationProblem = analysis.problem;
}

/** SignerCms is a signature value read as CMS: its DER without padding, the SignedData and its one signer. */
interface SignerCms {
  der: Buffer;
  signedData: pkijs.SignedData;
  signerInfo: pkijs.SignerInfo;
}

/** readSignerCms reads a padded /Contents value: one DER object, then zeros. */
function readSignerCms(padded: Buffer): SignerCms {
  if (padded.length === 0 || padded.every((byte) => byte === 0)) throw new BrokenSignatureError("the signature value is empty");
  const element = readElement(padded, 0);
  checkPadding(padded, element.end);
  const der = padded.subarray(0, element.end);
  const contentInfo = pkijs.ContentInfo.fromBER(toArrayBuffer(der));
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  const signerInfo = signedData.signerInfos[0];
  if (!signerInfo) throw new BrokenSignatureError("the CMS has no signer");
  return { der, signedData, signerInfo };
}

/** describeCertificates fills in the signer from its certificate and returns whether that certificate chains to a trust anchor. */
function describeCertificates(report: CheckedSignature, cms: SignerCms, trust: TrustStore, name: string | null, contact: string | null): boolean {
  const certificate = findSignerCertificate(cms.signedData, cms.signerInfo);
  report.certificateSubject = subjectLine(certificate);
  report.fingerprint = certificate.fingerprint256;
  report.signerName = name ?? commonName(certificate);
  report.signerEmail = emailOf(certificate, contact);
  const intermediates = (cms.signedData.certificates ?? [])
    .filter((item): item is pkijs.Certificate => item instanceof pkijs.Certificate)
    .map((item) => new X509Certificate(Buffer.from(item.toSchema().toBER(false))));
  report.chains = [{ leaf: certificate, embedded: intermediates }];
  return isTrusted(certificate, intermediates, trust);
}

/**
 * verifySignerValue checks the CMS signature of a (non-timestamp) signature over the signed
 * bytes: the messageDigest attribute against the digest of the ranges, the signature value with
 * the signer's certificate, then its signature timestamp if it carries one.
 */
async function verifySignerValue(report: CheckedSignature, bytes: Buffer, cms: SignerCms, range: SignedRange, digests: RangeDigests): Promise<void> {
  const { signerInfo } = cms;
  const { firstLength, secondStart, signedEnd } = range;
  const hash = hashNames[signerInfo.digestAlgorithm.algorithmId];
  if (!hash) throw new BrokenSignatureError(`the digest algorithm ${signerInfo.digestAlgorithm.algorithmId} is not supported`);
  const digest = digests.digest(hash, firstLength, secondStart, signedEnd);
  const signature = Buffer.from(signerInfo.signature.valueBlock.valueHexView);
  const signedAttributes = rawSignedAttributes(cms.der);
  let signedContent: Buffer = digest;
  if (signedAttributes) {
    const messageDigest = attributeValue(signerInfo, oids.messageDigest) as asn1js.OctetString | undefined;
    if (!messageDigest || !Buffer.from(messageDigest.valueBlock.valueHexView).equals(digest)) {
      throw new BrokenSignatureError("the document digest does not match: the signed bytes were changed");
    }
    signedContent = signedAttributes;
    const signingTime = attributeValue(signerInfo, oids.signingTime) as asn1js.UTCTime | asn1js.GeneralizedTime | undefined;
    if (signingTime) report.signingTime = signingTime.toDate().toISOString();
  } else {
    signedContent = Buffer.concat([bytes.subarray(0, firstLength), bytes.subarray(secondStart, signedEnd)]);
  }
  const certificate = report.chains![0]!.leaf;
  if (!verifyValue(signerInfo.signatureAlgorithm.algorithmId, hash, signedContent, certificate, signature)) {
    throw new BrokenSignatureError("the CMS signature value does not verify with the signer's certificate");
  }
  const token = attributeValue(signerInfo, oids.signatureTimeStampToken, true) as asn1js.Sequence | undefined;
  if (token) {
    const tokenDer = new Uint8Array(token.toBER(false));
    report.timestamp = await checkTimestamp(tokenDer, signature);
    const chain = tokenChain(tokenDer);
    if (chain) report.chains!.push(chain);
  }
}

/** markBroken records why a signature is broken; nothing of it is vouched for (its certificate, if its /Contents holds one, only describes it). */
function markBroken(report: CheckedSignature, error: unknown, dict: PdfDict): void {
  report.problem =
    error instanceof BrokenSignatureError || error instanceof SignatureBytesError ? error.message : "the signature value is not a readable CMS structure";
  report.signerName = null;
  report.signerEmail = null;
  report.signingTime = null;
  if (!report.certificateSubject) describeSigner(report, dict.get("Contents"));
}

/** SignatureContext is what checking one signature needs from the whole file. */
interface SignatureContext {
  bytes: Buffer;
  trust: TrustStore;
  digests: RangeDigests;
  history: RevisionHistory;
  locator: SignatureLocator;
}

/** checkOne verifies one signature (or document timestamp) dictionary and reports on it; only a verify limit throws. */
async function checkOne(entry: SignatureDictionary, context: SignatureContext): Promise<CheckedSignature> {
  const { bytes, trust, digests, history, locator } = context;
  const { dict } = entry;
  const report = newReport(entry, text(dict, "SubFilter") ?? "unknown");
  // /Name, /ContactInfo and /M count only once the dictionary is known to lie inside the signed bytes.
  const name = text(dict, "Name");
  const claimedTime = text(dict, "M");
  try {
    const range = readByteRange(dict, bytes.length);
    if (!entry.ref) throw new BrokenSignatureError("the signature field's /V is not an indirect reference to a signature dictionary");
    // The gap must be this dictionary's own /Contents, and the dictionary inside the signed bytes.
    const located = locator.locate(entry.ref, dict, [range.firstLength, range.secondStart], range.signedEnd);
    report.signerName = name;
    report.signingTime = claimedTime ? pdfDateToIso(claimedTime) : null;
    report.coversWholeDocument = range.signedEnd === bytes.length;
    report.signedEnd = range.signedEnd;
    report.modifiedAfter = range.signedEnd < bytes.length;
    await recordModifications(report, history, range.signedEnd, entry);
    const cms = readSignerCms(located.der);
    const trusted = describeCertificates(report, cms, trust, name, text(dict, "ContactInfo"));
    if (report.documentTimestamp) report.timestamp = await checkDocumentTimestamp(cms.der, digests, range.firstLength, range.secondStart, range.signedEnd);
    else await verifySignerValue(report, bytes, cms, range, digests);
    report.integrity = "ok";
    report.trusted = trusted;
  } catch (error) {
    // A verify limit (time, revisions, objects) is the whole request's answer (422), not this signature's.
    if (error instanceof SignetError) throw error;
    markBroken(report, error, dict);
  }
  return report;
}

function describeLevel(level: ModificationLevel): string {
  return {
    none: "nothing",
    lta: "document metadata or validation data",
    form_filling: "form fields and signatures",
    annotations: "annotations",
    other: "the document",
  }[level];
}

function summarize(report: CheckedSignature): SignerSummary {
  return { name: report.signerName, email: report.signerEmail, certificateSubject: report.certificateSubject };
}

/**
 * verifySignatures checks every signature of a PDF: the ByteRange covers everything but the
 * /Contents value, the digest of the covered bytes matches the CMS, the CMS signature verifies
 * with the embedded signer certificate, whether that certificate chains to a trusted one, and
 * whether bytes follow the signed range. Works for any ETSI.CAdES.detached or
 * adbe.pkcs7.detached signature, not only Signet's.
 */
export async function verifySignatures(file: PdfFile, trust: TrustStore, digests = new RangeDigests(file.bytes)): Promise<VerifyReport> {
  const { bytes } = file;
  const entries = readSignatures(file.latest);
  if (entries.length > MAX_SIGNATURES) {
    throw new SignetError(
      "INVALID_DOCUMENT",
      `The PDF has ${entries.length} signature fields; Signet verifies documents with at most ${MAX_SIGNATURES} signatures.`,
    );
  }
  const history = new RevisionHistory(file);
  // A certification's DocMDP permission bounds what may follow every later signature too.
  const certification = entries.find((entry) => entry.docMdp !== undefined)?.docMdp;
  const context: SignatureContext = {
    bytes,
    trust,
    digests,
    history,
    locator: new SignatureLocator(bytes, entries.length, (value, ref) => file.decrypted(value, ref)),
  };
  const reports: CheckedSignature[] = [];
  for (const entry of entries) {
    const report = await checkOne(entry, context);
    if (entry.docMdp !== undefined) report.docMdpPermission = entry.docMdp;
    report.changesPermitted = permitted(report.modificationLevel, strictestPermission(entry.docMdp ?? certification, entry.lock?.permission));
    reports.push(report);
  }
  await assignLevels(file.latest, reports);
  const broken = reports.filter((report) => report.integrity === "broken");
  const changed = reports.filter((report) => report.integrity === "ok" && !report.changesPermitted);
  let reason: string;
  if (reports.length === 0) reason = "The document has no signatures.";
  else if (broken.length > 0 || changed.length > 0) {
    reason = [
      ...broken.map((report) => `Signature "${report.field}" is broken: ${report.problem}.`),
      ...changed.map(
        (report) =>
          `The document was changed after signature "${report.field}" beyond what it permits (${report.modificationLevel}${report.modificationProblem ? `: ${report.modificationProblem}` : ""}).`,
      ),
    ].join(" ");
  } else {
    reason = `${reports.length === 1 ? "The signature is" : `All ${reports.length} signatures are`} intact.`;
    const last = reports.at(-1)!;
    if (last.modifiedAfter && last.modificationLevel === "none")
      reason += " Bytes were added after the last signature; they are not covered by any signature, and they hold no update of the document.";
    else if (last.modifiedAfter)
      reason += ` Updates were added after the last signature; they only change ${describeLevel(reports.at(-1)!.modificationLevel)}, which the signatures permit.`;
  }
  for (const report of reports) {
    if (report.timestamp && !report.timestamp.tokenValid)
      reason += ` The timestamp of signature "${report.field}" does not verify: ${report.timestamp.problem}; its time is not reported.`;
  }
  // A document timestamp vouches for the file's time, not for a signer.
  const signing = reports.filter((report) => !report.documentTimestamp);
  const untrusted = signing.filter((report) => report.integrity === "ok" && !report.trusted);
  if (untrusted.length > 0) {
    reason += ` ${untrusted.map((report) => `"${report.field}"`).join(", ")} ${untrusted.length === 1 ? "is" : "are"} not signed with this service's certificate or one chaining to a configured trust anchor (whatever the certificate's name says): not trusted.`;
  }
  const signers = signing.map(summarize);
  return {
    valid: reports.length > 0 && broken.length === 0 && changed.length === 0,
    trusted: signing.length > 0 && signing.every((report) => report.trusted),
    reason,
    signatures: reports.map(({ problem: _problem, signerEmail: _email, modificationProblem: _why, signedEnd: _end, chains: _chains, ...rest }) => rest),
    signer: signers.at(-1) ?? null,
    signers,
    document: { pages: file.pageCount, sha256: createHash("sha256").update(bytes).digest("hex") },
  };
}
