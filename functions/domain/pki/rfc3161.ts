import { createHash, randomBytes } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { oids } from "#domain/pki/oids.ts";
import { randomPositiveInteger } from "#domain/pki/der.ts";

const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;

/** TimestampRequest is an encoded RFC 3161 TimeStampReq and the nonce it carries. */
export interface TimestampRequest {
  der: Buffer;
  nonce: Buffer;
}

/** buildTimestampRequest encodes a TimeStampReq for a SHA-256 imprint, asking for the TSA certificate. */
export function buildTimestampRequest(imprint: Buffer): TimestampRequest {
  const nonce = randomPositiveInteger(randomBytes(8));
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: oids.sha256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: toArrayBuffer(imprint) }),
    }),
    nonce: new asn1js.Integer({ valueHex: toArrayBuffer(nonce) }),
    certReq: true,
  });
  return { der: Buffer.from(request.toSchema().toBER(false)), nonce };
}

/** TimestampInfo is what a timestamp token asserts. */
export interface TimestampInfo {
  genTime: Date;
  /** OID of the hash algorithm of the message imprint. */
  imprintAlgorithm: string;
  imprint: Buffer;
  nonce?: Buffer;
  policy: string;
  serialNumber: string;
  /** Subject of the TSA certificate when the token carries it. */
  authority?: string;
}

const TIME_STAMPING_EKU = "1.3.6.1.5.5.7.3.8";

function signedDataOf(token: Uint8Array): pkijs.SignedData {
  const contentInfo = pkijs.ContentInfo.fromBER(toArrayBuffer(token));
  if (contentInfo.contentType !== oids.signedData) throw new Error("not a timestamp token");
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  if (signedData.encapContentInfo.eContentType !== oids.tstInfo || !signedData.encapContentInfo.eContent) throw new Error("not a timestamp token");
  return signedData;
}

function authorityName(certificate: pkijs.Certificate): string {
  return certificate.subject.typesAndValues.map((tv) => `${shortName(tv.type)}=${tv.value.valueBlock.value}`).join(", ");
}

/**
 * readTimestampToken parses a TimeStampToken (CMS ContentInfo over a TSTInfo). It checks nothing:
 * use verifyTimestampToken before trusting what it says.
 */
export function readTimestampToken(token: Uint8Array): TimestampInfo {
  const signedData = signedDataOf(token);
  const tstInfo = pkijs.TSTInfo.fromBER(signedData.encapContentInfo.eContent!.getValue());
  const signerCertificate = signedData.certificates?.find((certificate): certificate is pkijs.Certificate => certificate instanceof pkijs.Certificate);
  return {
    genTime: tstInfo.genTime,
    imprintAlgorithm: tstInfo.messageImprint.hashAlgorithm.algorithmId,
    imprint: Buffer.from(tstInfo.messageImprint.hashedMessage.getValue()),
    ...(tstInfo.nonce ? { nonce: Buffer.from(tstInfo.nonce.valueBlock.valueHexView) } : {}),
    policy: tstInfo.policy,
    serialNumber: Buffer.from(tstInfo.serialNumber.valueBlock.valueHexView).toString("hex"),
    ...(signerCertificate ? { authority: authorityName(signerCertificate) } : {}),
  };
}

/**
 * verifyTimestampToken checks the TSA's CMS signature over the TSTInfo with the signer
 * certificate carried in the token (its chain is not checked: trust in the TSA is a separate
 * question), and that this certificate is a timestamping certificate (critical extended key
 * usage id-kp-timeStamping, RFC 3161 2.3). Returns what the token asserts, the authority being
 * the signer certificate's subject; throws an Error with a readable reason otherwise.
 */
export async function verifyTimestampToken(token: Uint8Array, data: Uint8Array | { digest: Buffer }): Promise<TimestampInfo> {
  let signedData: pkijs.SignedData;
  let info: TimestampInfo;
  try {
    signedData = signedDataOf(token);
    info = readTimestampToken(token);
  } catch {
    throw new Error("the timestamp token is not a readable RFC 3161 token");
  }
  let result: pkijs.SignedDataVerifyResult;
  const digestOnly = "digest" in data;
  if (digestOnly) {
    // Only the digest is known (a document timestamp): compare the imprint here, and let pkijs
    // check the signature over the TSTInfo as plain encapsulated content.
    if (info.imprintAlgorithm !== oids.sha256 || !info.imprint.equals(data.digest)) throw new Error("the timestamp token covers a different digest");
    signedData.encapContentInfo.eContentType = oids.data;
  }
  try {
    // With a TSTInfo, pkijs also checks the imprint against the hash of `data`.
    result = await signedData.verify({ signer: 0, ...(digestOnly ? {} : { data: toArrayBuffer(data) }), checkChain: false, extendedMode: true });
  } catch (error) {
    const message = (error as pkijs.SignedDataVerifyResult | undefined)?.message ?? (error as Error)?.message;
    throw new Error(`the timestamp token's signature does not verify${message ? ` (${message})` : ""}`);
  }
  if (!result.signatureVerified) throw new Error("the timestamp token's signature does not verify");
  const signer = result.signerCertificate;
  if (!signer) throw new Error("the timestamp token does not carry its signer's certificate");
  const eku = signer.extensions?.find((extension) => extension.extnID === "2.5.29.37");
  const purposes = eku?.parsedValue instanceof pkijs.ExtKeyUsage ? eku.parsedValue.keyPurposes : [];
  if (!eku?.critical || !purposes.includes(TIME_STAMPING_EKU)) {
    throw new Error("the timestamp token's certificate is not a timestamping certificate (critical extended key usage timeStamping)");
  }
  return { ...info, authority: authorityName(signer) };
}

function shortName(type: string): string {
  return ({ "2.5.4.3": "CN", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.6": "C" } as Record<string, string>)[type] ?? type;
}

/**
 * parseTimestampResponse checks a TimeStampResp: status granted, the token's imprint and nonce are
 * the ones asked for, its signature verifies with its timestamping certificate. Returns the
 * token's DER; throws an Error with a readable reason otherwise.
 */
export async function parseTimestampResponse(bytes: Uint8Array, request: TimestampRequest, data: Uint8Array | { digest: Buffer }): Promise<Buffer> {
  let response: pkijs.TimeStampResp;
  try {
    response = pkijs.TimeStampResp.fromBER(toArrayBuffer(bytes));
  } catch {
    throw new Error("the answer is not an RFC 3161 TimeStampResp");
  }
  const status = response.status.status;
  if (status !== 0 && status !== 1) throw new Error(`the timestamp authority refused the request (PKIStatus ${status})`);
  if (!response.timeStampToken) throw new Error("the answer carries no timestamp token");
  const token = Buffer.from(response.timeStampToken.toSchema().toBER(false));
  const info = readTimestampToken(token);
  const imprint = "digest" in data ? data.digest : createHash("sha256").update(data).digest();
  if (info.imprintAlgorithm !== oids.sha256 || !info.imprint.equals(imprint)) throw new Error("the timestamp token covers a different digest");
  if (!info.nonce || !stripZeros(info.nonce).equals(stripZeros(request.nonce))) throw new Error("the timestamp token's nonce does not match the request");
  await verifyTimestampToken(token, data);
  return token;
}

function stripZeros(bytes: Buffer): Buffer {
  let index = 0;
  while (index < bytes.length - 1 && bytes[index] === 0) index++;
  return bytes.subarray(index);
}
