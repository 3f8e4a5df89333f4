import { randomBytes } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { oids } from "#domain/cades-signature.ts";
import { randomPositiveInteger } from "#domain/der.ts";

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
  imprint: Buffer;
  nonce?: Buffer;
  policy: string;
  serialNumber: string;
  /** Subject of the TSA certificate when the token carries it. */
  authority?: string;
}

/** readTimestampToken parses a TimeStampToken (CMS ContentInfo over a TSTInfo). */
export function readTimestampToken(token: Uint8Array): TimestampInfo {
  const contentInfo = pkijs.ContentInfo.fromBER(toArrayBuffer(token));
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  const content = signedData.encapContentInfo.eContent;
  if (signedData.encapContentInfo.eContentType !== oids.tstInfo || !content) throw new Error("not a timestamp token");
  const tstInfo = pkijs.TSTInfo.fromBER(content.getValue());
  const signerCertificate = signedData.certificates?.find((certificate): certificate is pkijs.Certificate => certificate instanceof pkijs.Certificate);
  return {
    genTime: tstInfo.genTime,
    imprint: Buffer.from(tstInfo.messageImprint.hashedMessage.getValue()),
    ...(tstInfo.nonce ? { nonce: Buffer.from(tstInfo.nonce.valueBlock.valueHexView) } : {}),
    policy: tstInfo.policy,
    serialNumber: Buffer.from(tstInfo.serialNumber.valueBlock.valueHexView).toString("hex"),
    ...(signerCertificate ? { authority: signerCertificate.subject.typesAndValues.map((tv) => `${shortName(tv.type)}=${tv.value.valueBlock.value}`).join(", ") } : {}),
  };
}

function shortName(type: string): string {
  return ({ "2.5.4.3": "CN", "2.5.4.10": "O", "2.5.4.11": "OU", "2.5.4.6": "C" } as Record<string, string>)[type] ?? type;
}

/**
 * parseTimestampResponse checks a TimeStampResp: status granted, the token's imprint and nonce are
 * the ones asked for. Returns the token's DER; throws an Error with a readable reason otherwise.
 */
export function parseTimestampResponse(bytes: Uint8Array, request: TimestampRequest, imprint: Buffer): Buffer {
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
  if (!info.imprint.equals(imprint)) throw new Error("the timestamp token covers a different digest");
  if (!info.nonce || !stripZeros(info.nonce).equals(stripZeros(request.nonce))) throw new Error("the timestamp token's nonce does not match the request");
  return token;
}

function stripZeros(bytes: Buffer): Buffer {
  let index = 0;
  while (index < bytes.length - 1 && bytes[index] === 0) index++;
  return bytes.subarray(index);
}
