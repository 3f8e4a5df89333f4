import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

/** CODE_TTL_SECONDS is how long an e-mail code stays valid (SPEC 6: 15 minutes). */
export const CODE_TTL_SECONDS = 15 * 60;
/** CODE_MAX_WRONG_TRIES is how many wrong tries kill a code (SPEC 6). */
export const CODE_MAX_WRONG_TRIES = 5;
/** CODE_PATTERN is the form of a code: exactly six digits. */
export const CODE_PATTERN = /^\d{6}$/;

/** CodeRecord is a pending e-mail code as stored: only a salted hash of the code itself. */
export interface CodeRecord {
  /** The address the code was sent to, in its lookup form (lower case). */
  address: string;
  /** Random id of this code, so a newer code is never touched by an update aimed at an older one. */
  codeId: string;
  salt: string;
  codeHash: string;
  wrongTries: number;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds after which the code is expired. */
  expiresAt: number;
  /** Set (epoch ms) once the code minted a key. */
  consumedAt?: number;
}

/** generateCode draws a 6-digit code from the crypto random source. */
export function generateCode(draw: (max: number) => number = (max) => randomInt(max)): string {
  return String(draw(1_000_000)).padStart(6, "0");
}

/** hashCode is the salted SHA-256 (hex) of a code. */
export function hashCode(code: string, salt: string): string {
  return createHash("sha256").update(`${salt}:${code}`, "utf8").digest("hex");
}

/** newCodeRecord makes the record to store for a freshly generated code. */
export function newCodeRecord(address: string, code: string, now: number): CodeRecord {
  const salt = randomBytes(16).toString("hex");
  return {
    address,
    codeId: randomBytes(12).toString("hex"),
    salt,
    codeHash: hashCode(code, salt),
    wrongTries: 0,
    createdAt: now,
    expiresAt: now + CODE_TTL_SECONDS * 1000,
  };
}

/** CodeCheck is what a presented code means for a stored record. */
export type CodeCheck =
  | { outcome: "match" }
  | { outcome: "wrong" }
  | { outcome: "missing" }
  | { outcome: "expired" }
  | { outcome: "used" }
  | { outcome: "dead"; retryAfterSeconds: number };

/**
 * checkCode decides what a presented code does to a record: the state checks come first (so a
 * dead or used code never reveals whether a guess was right), then a constant-time comparison.
 */
export function checkCode(record: CodeRecord | undefined, code: string, now: number): CodeCheck {
  if (!record) return { outcome: "missing" };
  if (record.consumedAt !== undefined) return { outcome: "used" };
  if (record.expiresAt <= now) return { outcome: "expired" };
  if (record.wrongTries >= CODE_MAX_WRONG_TRIES) {
    return { outcome: "dead", retryAfterSeconds: Math.max(1, Math.ceil((record.expiresAt - now) / 1000)) };
  }
  const presented = Buffer.from(hashCode(code, record.salt), "hex");
  const stored = Buffer.from(record.codeHash, "hex");
  const match = presented.length === stored.length && timingSafeEqual(presented, stored);
  return match ? { outcome: "match" } : { outcome: "wrong" };
}
