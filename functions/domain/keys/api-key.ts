import { createHash, randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";

/** KEY_PREFIX starts every Signet API key, so secret scanners can recognise one. */
export const KEY_PREFIX = "sgn_";
/** KEY_RANDOM_LENGTH is the number of random base62 characters (32 x 5.95 bits = 190 bits). */
const KEY_RANDOM_LENGTH = 32;
/** KEY_CHECKSUM_LENGTH is the number of base62 characters of the CRC32 checksum (62^6 > 2^32). */
const KEY_CHECKSUM_LENGTH = 6;
/** KEY_LENGTH is the length of a whole key: prefix, random part, checksum. */
export const KEY_LENGTH = KEY_PREFIX.length + KEY_RANDOM_LENGTH + KEY_CHECKSUM_LENGTH;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${KEY_RANDOM_LENGTH + KEY_CHECKSUM_LENGTH}}$`);

/** base62Checksum encodes the CRC32 of text as 6 base62 characters, zero-padded. */
export function base62Checksum(text: string): string {
  let value = crc32(Buffer.from(text, "ascii"));
  let out = "";
  for (let i = 0; i < KEY_CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62]! + out;
    value = Math.floor(value / 62);
  }
  return out;
}

/** randomBase62 draws length characters uniformly from the base62 alphabet (rejection sampling). */
export function randomBase62(length: number, random: (size: number) => Buffer = randomBytes): string {
  let out = "";
  while (out.length < length) {
    for (const byte of random(length * 2)) {
      // 248 = 4 x 62: bytes at or above it would make the first characters likelier.
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** generateApiKey makes a new key: "sgn_" + 32 random base62 characters + the checksum of those. */
export function generateApiKey(random?: (size: number) => Buffer): string {
  const body = randomBase62(KEY_RANDOM_LENGTH, random);
  return `${KEY_PREFIX}${body}${base62Checksum(body)}`;
}

/** KeyCheck is the outcome of checking a key's form without any database read. */
export type KeyCheck = { ok: true } | { ok: false; reason: "malformed" | "checksum" };

/** checkApiKeyFormat checks prefix, length, alphabet and checksum of a presented key. */
export function checkApiKeyFormat(key: string): KeyCheck {
  if (!KEY_PATTERN.test(key)) return { ok: false, reason: "malformed" };
  const body = key.slice(KEY_PREFIX.length, KEY_PREFIX.length + KEY_RANDOM_LENGTH);
  const checksum = key.slice(KEY_PREFIX.length + KEY_RANDOM_LENGTH);
  return checksum === base62Checksum(body) ? { ok: true } : { ok: false, reason: "checksum" };
}

/** hashApiKey is the SHA-256 (hex) under which a key (or a revocation token) is stored; the secret itself never is. */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/**
 * keyIdOf was the id of keys minted before ids became random (a prefix of the key's hash); such
 * keys keep it. New keys get newKeyId, so a public id reveals nothing about the key or its hash.
 */
export function keyIdOf(keyHash: string): string {
  return `key_${keyHash.slice(0, 16)}`;
}

/** newKeyId is a fresh public id of a key: `key_` + 16 random base62 characters. */
export function newKeyId(random?: (size: number) => Buffer): string {
  return `key_${randomBase62(16, random)}`;
}

/** KEY_ID_PATTERN matches a public key id, old (hash prefix) or new (random). */
export const KEY_ID_PATTERN = /^key_[0-9A-Za-z]{16}$/;

/** newRevokeToken is the secret of a one-time revocation link: `rvk_` + 32 random base62 characters. */
export function newRevokeToken(random?: (size: number) => Buffer): string {
  return `rvk_${randomBase62(32, random)}`;
}

/** REVOKE_TOKEN_PATTERN matches a revocation link token. */
export const REVOKE_TOKEN_PATTERN = /^rvk_[0-9A-Za-z]{32}$/;

/** keyHint shows a key the way a notice may: the prefix and the last 4 characters only. */
export function keyHint(key: string): string {
  return `${KEY_PREFIX}...${key.slice(-4)}`;
}

/** BearerToken is what an Authorization header yielded. */
export type BearerToken = { ok: true; token: string } | { ok: false; reason: "missing" | "not-bearer" };

/** parseBearer reads "Bearer <token>" (scheme case-insensitive) from an Authorization header. */
export function parseBearer(header: string | undefined | null): BearerToken {
  if (!header || header.trim() === "") return { ok: false, reason: "missing" };
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? { ok: true, token: match[1]! } : { ok: false, reason: "not-bearer" };
}
