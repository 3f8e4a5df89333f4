import type { KeyObject } from "node:crypto";
import * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { algorithmIdentifier, type Signer } from "#domain/pki/signer.ts";

/**
 * certificationRequest writes a PKCS#10 certificate signing request (RFC 2986) for the signer's
 * key, signed through the signer (in KMS, the key never leaves), with the subject common name and
 * the key usage a document-signing certificate needs (digitalSignature, nonRepudiation) as a
 * requested extension. Returns PEM.
 */
export async function certificationRequest(signer: Signer, commonName: string): Promise<string> {
  const request = new pkijs.CertificationRequest();
  request.version = 0;
  request.subject.typesAndValues.push(new pkijs.AttributeTypeAndValue({ type: "2.5.4.3", value: new asn1js.Utf8String({ value: commonName }) }));
  request.subjectPublicKeyInfo = spkiOf(signer.publicKey);
  const keyUsage = new pkijs.Extension({
    extnID: "2.5.29.15",
    critical: true,
    extnValue: new asn1js.BitString({ valueHex: new Uint8Array([0b1100_0000]).buffer, unusedBits: 6 }).toBER(false),
  });
  request.attributes = [new pkijs.Attribute({ type: "1.2.840.113549.1.9.14", values: [new pkijs.Extensions({ extensions: [keyUsage] }).toSchema()] })];
  const algorithm = algorithmIdentifier(signer);
  request.signatureAlgorithm = algorithm;
  const info = new Uint8Array((request as unknown as { encodeTBS(): asn1js.Sequence }).encodeTBS().toBER(false));
  request.tbsView = info;
  request.signatureValue = new asn1js.BitString({ valueHex: new Uint8Array(await signer.sign(Buffer.from(info))) });
  const der = Buffer.from(request.toSchema().toBER(false));
  const lines = der
    .toString("base64")
    .match(/.{1,64}/g)!
    .join("\n");
  return `-----BEGIN CERTIFICATE REQUEST-----\n${lines}\n-----END CERTIFICATE REQUEST-----\n`;
}

function spkiOf(publicKey: KeyObject): pkijs.PublicKeyInfo {
  return pkijs.PublicKeyInfo.fromBER(new Uint8Array(publicKey.export({ type: "spki", format: "der" })));
}
