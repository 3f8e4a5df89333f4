import { createCipheriv, createDecipheriv, createHash } from "node:crypto";

/**
 * The standard security handler of ISO 32000-2 7.6.4 (revisions 2 to 6): which password opens a
 * file and the file key it yields, and the per-object ciphers (RC4, AES-128, AES-256). Pure
 * computation over the /Encrypt dictionary's values; reading that dictionary is encryption.ts's.
 * Written because libpdf 0.4.2 keeps its handler private and, given a wrong password, fails later
 * with an unrelated parse error instead of saying the password is wrong.
 */

/** CipherMethod is how a crypt filter encrypts: not at all, RC4, AES-128 (AESV2) or AES-256 (AESV3). */
export type CipherMethod = "None" | "V2" | "AESV2" | "AESV3";

/** StandardSecurity holds what the /Encrypt dictionary says, already checked for shape (encryption.ts). */
export interface StandardSecurity {
  /** /V (1, 2, 4 or 5). */
  version: number;
  /** /R (2 to 6). */
  revision: number;
  /** The file key length in bytes (5 to 16 for R2-R4, 32 for R5-R6). */
  keyBytes: number;
  owner: Buffer;
  user: Buffer;
  ownerKey?: Buffer | undefined;
  userKey?: Buffer | undefined;
  permissions: number;
  encryptMetadata: boolean;
  /** The first element of the trailer's /ID (empty when absent: only R5-R6 do without it). */
  fileId: Buffer;
  stringMethod: CipherMethod;
  streamMethod: CipherMethod;
}

/** Unlocked is a password that opened the file: as whom, and the file key. */
export interface Unlocked {
  as: "user" | "owner";
  key: Buffer;
}

const PAD = Buffer.from("28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a", "hex");

/** rc4 is the RC4 stream cipher (Node's OpenSSL 3 no longer ships it). */
function rc4(key: Buffer, data: Buffer): Buffer {
  const state = new Uint8Array(256);
  for (let index = 0; index < 256; index++) state[index] = index;
  for (let index = 0, j = 0; index < 256; index++) {
    j = (j + state[index]! + key[index % key.length]!) & 255;
    [state[index], state[j]] = [state[j]!, state[index]!];
  }
  const out = Buffer.alloc(data.length);
  for (let at = 0, i = 0, j = 0; at < data.length; at++) {
    i = (i + 1) & 255;
    j = (j + state[i]!) & 255;
    [state[i], state[j]] = [state[j]!, state[i]!];
    out[at] = data[at]! ^ state[(state[i]! + state[j]!) & 255]!;
  }
  return out;
}

const md5 = (...parts: Buffer[]) => createHash("md5").update(Buffer.concat(parts)).digest();

/** padded is a password as R2-R4 use it: its first 32 bytes, filled up with the standard padding. */
function padded(password: Buffer): Buffer {
  const head = password.subarray(0, 32);
  return Buffer.concat([head, PAD.subarray(0, 32 - head.length)]);
}

/** legacyKey is algorithm 2: the file key R2-R4 derive from a (padded) user password. */
function legacyKey(security: StandardSecurity, password: Buffer): Buffer {
  const permissions = Buffer.alloc(4);
  permissions.writeInt32LE(security.permissions | 0);
  const noMetadata = security.revision >= 4 && !security.encryptMetadata ? Buffer.from([255, 255, 255, 255]) : Buffer.alloc(0);
  let hash = md5(padded(password), security.owner.subarray(0, 32), permissions, security.fileId, noMetadata);
  if (security.revision >= 3) for (let round = 0; round < 50; round++) hash = md5(hash.subarray(0, security.keyBytes));
  return hash.subarray(0, security.keyBytes);
}

/** rc4Rounds is the 20-pass RC4 of R3 and later (key XOR pass number), forwards or backwards. */
function rc4Rounds(key: Buffer, data: Buffer, backwards: boolean): Buffer {
  let out = data;
  for (let step = 0; step < 20; step++) {
    const round = backwards ? 19 - step : step;
    out = rc4(Buffer.from(key.map((byte) => byte ^ round)), out);
  }
  return out;
}

/** legacyUser is algorithms 4-6: the file key when `password` is the user password, else undefined. */
function legacyUser(security: StandardSecurity, password: Buffer): Buffer | undefined {
  const key = legacyKey(security, password);
  if (security.revision === 2) return rc4(key, PAD).equals(security.user.subarray(0, 32)) ? key : undefined;
  const check = rc4Rounds(key, md5(PAD, security.fileId), false);
  return check.subarray(0, 16).equals(security.user.subarray(0, 16)) ? key : undefined;
}

/** legacyOwner is algorithm 7: the owner password decrypts /O to the user password, which must then open the file. */
function legacyOwner(security: StandardSecurity, password: Buffer): Buffer | undefined {
  let hash = md5(padded(password));
  if (security.revision >= 3) for (let round = 0; round < 50; round++) hash = md5(hash);
  const key = hash.subarray(0, security.keyBytes);
  const owner = security.owner.subarray(0, 32);
  const userPassword = security.revision === 2 ? rc4(key, owner) : rc4Rounds(key, owner, true);
  return legacyUser(security, userPassword);
}

/** hardenedHash is algorithm 2.B (R6; R5 is its first SHA-256 only): the hash of a password, a salt and the user data. */
function hardenedHash(revision: number, password: Buffer, salt: Buffer, userData: Buffer): Buffer {
  let key = createHash("sha256")
    .update(Buffer.concat([password, salt, userData]))
    .digest();
  if (revision === 5) return key;
  for (let round = 0; ; round++) {
    const block = Buffer.concat([password, key, userData]);
    const cipher = createCipheriv("aes-128-cbc", key.subarray(0, 16), key.subarray(16, 32)).setAutoPadding(false);
    const encrypted = Buffer.concat([cipher.update(Buffer.concat(Array.from({ length: 64 }, () => block))), cipher.final()]);
    let sum = 0;
    for (let index = 0; index < 16; index++) sum += encrypted[index]!;
    key = createHash(["sha256", "sha384", "sha512"][sum % 3]!)
      .update(encrypted)
      .digest();
    if (round >= 63 && encrypted.at(-1)! <= round + 1 - 32) break;
  }
  return key.subarray(0, 32);
}

/** aesKeyUnwrap decrypts /UE or /OE (AES-256, no IV, no padding) with an intermediate key. */
function aesKeyUnwrap(key: Buffer, wrapped: Buffer): Buffer {
  const decipher = createDecipheriv("aes-256-cbc", key, Buffer.alloc(16)).setAutoPadding(false);
  return Buffer.concat([decipher.update(wrapped.subarray(0, 32)), decipher.final()]);
}

/** modernUnlock is algorithms 2.A/11/12 (R5, R6): the owner password is tried first, as readers do. */
function modernUnlock(security: StandardSecurity, text: string): Unlocked | undefined {
  const password = Buffer.from(text.normalize("NFKC"), "utf8").subarray(0, 127);
  const { owner, user, revision } = security;
  const userData = user.subarray(0, 48);
  if (hardenedHash(revision, password, owner.subarray(32, 40), userData).equals(owner.subarray(0, 32)) && security.ownerKey) {
    return { as: "owner", key: aesKeyUnwrap(hardenedHash(revision, password, owner.subarray(40, 48), userData), security.ownerKey) };
  }
  if (hardenedHash(revision, password, user.subarray(32, 40), Buffer.alloc(0)).equals(user.subarray(0, 32)) && security.userKey) {
    return { as: "user", key: aesKeyUnwrap(hardenedHash(revision, password, user.subarray(40, 48), Buffer.alloc(0)), security.userKey) };
  }
  return undefined;
}

/** unlock tries a password as the owner's, then as the user's; undefined when it is neither. */
export function unlock(security: StandardSecurity, password: string): Unlocked | undefined {
  if (security.revision >= 5) return modernUnlock(security, password);
  // R2-R4 passwords are PDFDocEncoding; Latin-1 is its printable part.
  const bytes = Buffer.from(password, "latin1");
  const asOwner = legacyOwner(security, bytes);
  if (asOwner) return { as: "owner", key: asOwner };
  const asUser = legacyUser(security, bytes);
  return asUser ? { as: "user", key: asUser } : undefined;
}

/** objectKey is algorithm 1: R2-R4 derive a key per object from the file key, its number and generation. */
function objectKey(fileKey: Buffer, number: number, generation: number, aes: boolean): Buffer {
  const suffix = Buffer.from([number & 255, (number >> 8) & 255, (number >> 16) & 255, generation & 255, (generation >> 8) & 255]);
  const hash = md5(fileKey, suffix, aes ? Buffer.from("sAlT") : Buffer.alloc(0));
  return hash.subarray(0, Math.min(fileKey.length + 5, 16));
}

/** CipherError says encrypted data does not decrypt (a truncated AES block, bad padding). */
export class CipherError extends Error {}

/** decryptWith decrypts one string or stream of object `number` `generation` with a crypt filter method. */
export function decryptWith(method: CipherMethod, fileKey: Buffer, data: Buffer, number: number, generation: number): Buffer {
  if (method === "None") return data;
  if (method === "V2") return rc4(objectKey(fileKey, number, generation, false), data);
  if (data.length === 0) return data;
  if (data.length < 32 || data.length % 16 !== 0) throw new CipherError(`an AES-encrypted value of ${data.length} bytes (not whole blocks after its IV)`);
  const key = method === "AESV3" ? fileKey : objectKey(fileKey, number, generation, true);
  try {
    const decipher = createDecipheriv(method === "AESV3" ? "aes-256-cbc" : "aes-128-cbc", key, data.subarray(0, 16));
    return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]);
  } catch (error) {
    throw new CipherError(`an AES-encrypted value does not decrypt (${(error as Error).message})`);
  }
}
