import { createDecipheriv, createHash, createHmac, createPrivateKey, timingSafeEqual, X509Certificate, type KeyObject } from "node:crypto";
import type * as asn1js from "asn1js";
import * as pkijs from "pkijs";
import { rc2CbcDecrypt } from "#domain/pki/rc2.ts";

/** Pkcs12Contents is what a PKCS#12 file holds that signing needs: its private key and certificates. */
export interface Pkcs12Contents {
  privateKey: KeyObject;
  certificates: X509Certificate[];
}

/** Pkcs12Error says why a PKCS#12 file could not be read (the message is for the operator). */
export class Pkcs12Error extends Error {}

const OID = {
  data: "1.2.840.113549.1.7.1",
  encryptedData: "1.2.840.113549.1.7.6",
  keyBag: "1.2.840.113549.1.12.10.1.1",
  shroudedKeyBag: "1.2.840.113549.1.12.10.1.2",
  certBag: "1.2.840.113549.1.12.10.1.3",
  x509Certificate: "1.2.840.113549.1.9.22.1",
  pbeSha1TripleDes: "1.2.840.113549.1.12.1.3",
  pbeSha1TwoKeyDes: "1.2.840.113549.1.12.1.4",
  pbeSha1Rc2_128: "1.2.840.113549.1.12.1.5",
  pbeSha1Rc2_40: "1.2.840.113549.1.12.1.6",
} as const;

// A copy: a Buffer's .buffer may be a shared pool larger than the Buffer.
const toArrayBuffer = (bytes: Uint8Array): ArrayBuffer => Uint8Array.from(bytes).buffer;

/**
 * pkcs12Kdf is the PKCS#12 key derivation (RFC 7292 appendix B.2), used by the MAC and the legacy
 * password-based ciphers: id 1 derives a key, id 2 an IV, id 3 the MAC key.
 */
function pkcs12Kdf(password: string, salt: Buffer, iterations: number, id: 1 | 2 | 3, size: number, hash = "sha1"): Buffer {
  const v = 64; // the block size of SHA-1 and SHA-256
  const bmp = Buffer.alloc(password.length * 2 + 2); // BMPString, big-endian, with a 2-byte terminator
  for (let i = 0; i < password.length; i++) bmp.writeUInt16BE(password.charCodeAt(i), i * 2);
  const repeat = (source: Buffer): Buffer => {
    const out = Buffer.alloc(v * Math.ceil(source.length / v));
    for (let i = 0; i < out.length; i++) out[i] = source[i % source.length]!;
    return out;
  };
  const input = Buffer.concat([repeat(salt), repeat(bmp)]);
  const blocks: Buffer[] = [];
  for (let produced = 0; produced < size; ) {
    let digest = createHash(hash).update(Buffer.alloc(v, id)).update(input).digest();
    for (let round = 1; round < iterations; round++) digest = createHash(hash).update(digest).digest();
    produced += digest.length;
    blocks.push(digest);
    const b = repeat(digest);
    for (let offset = 0; offset < input.length; offset += v) {
      let carry = 1;
      for (let k = v - 1; k >= 0; k--) {
        const sum = input[offset + k]! + b[k]! + carry;
        input[offset + k] = sum & 0xff;
        carry = sum >> 8;
      }
    }
  }
  return Buffer.concat(blocks).subarray(0, size);
}

/** decrypt opens an encrypted PKCS#12 part: PBES2 through pkijs, the legacy 3DES ciphers here. */
async function decrypt(algorithm: pkijs.AlgorithmIdentifier, encrypted: asn1js.OctetString, password: string): Promise<ArrayBuffer> {
  const id = algorithm.algorithmId;
  if (id === OID.pbeSha1TripleDes || id === OID.pbeSha1TwoKeyDes) {
    const [salt, iterations] = (algorithm.algorithmParams as asn1js.Sequence).valueBlock.value as [asn1js.OctetString, asn1js.Integer];
    const saltBytes = Buffer.from(salt.valueBlock.valueHexView);
    const rounds = iterations.valueBlock.valueDec;
    let key = pkcs12Kdf(password, saltBytes, rounds, 1, id === OID.pbeSha1TripleDes ? 24 : 16);
    if (key.length === 16) key = Buffer.concat([key, key.subarray(0, 8)]);
    const decipher = createDecipheriv("des-ede3-cbc", key, pkcs12Kdf(password, saltBytes, rounds, 2, 8));
    return toArrayBuffer(Buffer.concat([decipher.update(Buffer.from(encrypted.valueBlock.valueHexView)), decipher.final()]));
  }
  if (id === OID.pbeSha1Rc2_40 || id === OID.pbeSha1Rc2_128) {
    // OpenSSL 1.x's default for the certificates; Node's OpenSSL 3 has no RC2, hence rc2.ts.
    const [salt, iterations] = (algorithm.algorithmParams as asn1js.Sequence).valueBlock.value as [asn1js.OctetString, asn1js.Integer];
    const saltBytes = Buffer.from(salt.valueBlock.valueHexView);
    const rounds = iterations.valueBlock.valueDec;
    const bits = id === OID.pbeSha1Rc2_40 ? 40 : 128;
    try {
      return toArrayBuffer(
        rc2CbcDecrypt(
          Buffer.from(encrypted.valueBlock.valueHexView),
          pkcs12Kdf(password, saltBytes, rounds, 1, bits / 8),
          pkcs12Kdf(password, saltBytes, rounds, 2, 8),
          bits,
        ),
      );
    } catch (error) {
      throw new Pkcs12Error(`an RC2-encrypted part could not be decrypted: ${(error as Error).message}`);
    }
  }
  const engine = pkijs.getCrypto(true);
  return engine.decryptEncryptedContentInfo({
    encryptedContentInfo: new pkijs.EncryptedContentInfo({ contentEncryptionAlgorithm: algorithm, encryptedContent: encrypted }),
    password: toArrayBuffer(Buffer.from(password, "utf8")),
  });
}

const MAC_HASHES: Record<string, string> = {
  "1.3.14.3.2.26": "sha1",
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
};

/** checkMac verifies the file's password MAC (HMAC with a PKCS#12-derived key) over the authenticated safe. */
function checkMac(pfx: pkijs.PFX, password: string): void {
  const mac = pfx.macData;
  if (!mac) throw new Pkcs12Error("it has no password MAC (public-key integrity mode is not supported)");
  const hash = MAC_HASHES[mac.mac.digestAlgorithm.algorithmId];
  if (!hash) throw new Pkcs12Error(`its MAC uses the unsupported digest ${mac.mac.digestAlgorithm.algorithmId}`);
  if (hash !== "sha1" && hash !== "sha256") throw new Pkcs12Error(`its MAC uses ${hash}; export it with a SHA-256 MAC`);
  const content = Buffer.from((pfx.authSafe.content as asn1js.OctetString).getValue());
  const size = hash === "sha1" ? 20 : 32;
  const key = pkcs12Kdf(password, Buffer.from(mac.macSalt.valueBlock.valueHexView), mac.iterations ?? 1, 3, size, hash);
  const expected = createHmac(hash, key).update(content).digest();
  const stated = Buffer.from(mac.mac.digest.valueBlock.valueHexView);
  if (stated.length !== expected.length || !timingSafeEqual(stated, expected))
    throw new Pkcs12Error("its MAC does not match: the password is wrong or the file is damaged");
}

/** safeBagsOf opens one part of the authenticated safe: plain data, or password-encrypted data. */
async function safeBagsOf(info: pkijs.ContentInfo, password: string): Promise<pkijs.SafeBag[]> {
  if (info.contentType === OID.data) {
    return pkijs.SafeContents.fromBER((info.content as asn1js.OctetString).getValue()).safeBags;
  }
  if (info.contentType === OID.encryptedData) {
    const encrypted = new pkijs.EncryptedData({ schema: info.content });
    const content = encrypted.encryptedContentInfo;
    if (!content.encryptedContent) throw new Pkcs12Error("an encrypted part holds no data");
    const plain = await decrypt(content.contentEncryptionAlgorithm, content.encryptedContent, password);
    return pkijs.SafeContents.fromBER(plain).safeBags;
  }
  throw new Pkcs12Error(`a part of type ${info.contentType} is not supported (public-key privacy mode)`);
}

/**
 * readPkcs12 reads a PKCS#12 (.p12/.pfx) file with pkijs: checks its MAC with the password, opens
 * the key and the certificates: PBES2 (OpenSSL 3's default) through pkijs, and the legacy SHA-1
 * 3DES (Windows' export) and RC2 (OpenSSL 1.x's default) ciphers here.
 */
export async function readPkcs12(bytes: Uint8Array, password: string): Promise<Pkcs12Contents> {
  let pfx: pkijs.PFX;
  try {
    pfx = pkijs.PFX.fromBER(toArrayBuffer(bytes));
  } catch {
    throw new Pkcs12Error("it is not a PKCS#12 file");
  }
  if (pfx.authSafe.contentType !== OID.data) throw new Pkcs12Error("its content is not password-protected data (public-key mode is not supported)");
  checkMac(pfx, password);
  const safe = pkijs.AuthenticatedSafe.fromBER((pfx.authSafe.content as asn1js.OctetString).getValue());
  let privateKey: KeyObject | undefined;
  const certificates: X509Certificate[] = [];
  for (const part of safe.safeContents) {
    for (const bag of await safeBagsOf(part, password)) {
      if (bag.bagId === OID.keyBag || bag.bagId === OID.shroudedKeyBag) {
        const info =
          bag.bagId === OID.keyBag
            ? (bag.bagValue as pkijs.PrivateKeyInfo)
            : await (async () => {
                const shrouded = bag.bagValue as pkijs.PKCS8ShroudedKeyBag;
                return pkijs.PrivateKeyInfo.fromBER(await decrypt(shrouded.encryptionAlgorithm, shrouded.encryptedData, password));
              })();
        privateKey = createPrivateKey({ key: Buffer.from(info.toSchema().toBER(false)), format: "der", type: "pkcs8" });
      } else if (bag.bagId === OID.certBag) {
        const certBag = bag.bagValue as pkijs.CertBag;
        if (certBag.certId !== OID.x509Certificate) continue;
        certificates.push(new X509Certificate(Buffer.from((certBag.certValue as asn1js.OctetString).getValue())));
      }
    }
  }
  if (!privateKey) throw new Pkcs12Error("it holds no private key");
  return { privateKey, certificates };
}
