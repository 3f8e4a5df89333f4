import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

/** CODE_TTL_SECONDS is how long an e-mail code stays valid (docs/api.md, "API keys": 15 minutes). */
export const CODE_TTL_SECONDS = 15 * 60;
/** CODE_MAX_WRONG_TRIES is how many wrong tries from the network that asked for the code kill it (docs/api.md, "API keys"). */
export const CODE_MAX_WRONG_TRIES = 5;
/**
 * CODE_MAX_OTHER_TRIES is how many wrong tries from every other network together close a code to
 * them: the code then works only from the network that asked for it, so strangers cannot kill it.
 */
export const CODE_MAX_OTHER_TRIES = 5;
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
  /** Wrong tries from the requester's network (or from anywhere, for a code stored without one). */
  wrongTries: number;
  /** Wrong tries from every other network together (absent on codes stored before it was counted). */
  otherTries?: number;
  /** The rate-limit bucket (ipBucketOf) of the register call that made the code; absent on older codes. */
  requester?: string;
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

/** newCodeRecord makes the record to store for a freshly generated code, asked for from the network `requester`. */
export function newCodeRecord(address: string, code: string, now: number, requester: string): CodeRecord {
  const salt = randomBytes(16).toString("hex");
  return {
    address,
    codeId: randomBytes(12).toString("hex"),
    salt,
    codeHash: hashCode(code, salt),
    wrongTries: 0,
    otherTries: 0,
    requester,
    createdAt: now,
    expiresAt: now + CODE_TTL_SECONDS * 1000,
  };
}

/**
 * decoyCodeRecord is what register stores for an address outside the allow-list: a record of the
 * same shape and size as a real one (the same write), whose hash no 6-digit code can match.
 */
export function decoyCodeRecord(address: string, now: number, requester: string): CodeRecord {
  return newCodeRecord(address, randomBytes(32).toString("hex"), now, requester);
}

/** TrySide says whose wrong tries a verify call counts against: the requester's network or everyone else's. */
export type TrySide = "requester" | "other";

/** sideOf tells which count a try from `source` (an ipBucketOf bucket) goes to; a code without a requester counts every try as the requester's. */
function sideOf(record: CodeRecord, source: string): TrySide {
  return record.requester === undefined || record.requester === source ? "requester" : "other";
}

/**
 * CodeCheck is what a presented code means for a stored record. `refused` is the one answer a
 * caller who does not know the code gets, whatever the reason (none pending, wrong, used,
 * expired, dead, closed to its network), so the answer says nothing about the address. Only a
 * caller presenting the right code learns that it is used or expired.
 */
export type CodeCheck = { outcome: "match" } | { outcome: "wrong"; side: TrySide } | { outcome: "refused" } | { outcome: "expired" } | { outcome: "used" };

function matches(record: CodeRecord, code: string): boolean {
  const presented = Buffer.from(hashCode(code, record.salt), "hex");
  const stored = Buffer.from(record.codeHash, "hex");
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

/**
 * checkCode decides what a presented code from the network `source` does to a record. A code
 * dead (5 wrong tries from its requester's network) or closed to the caller's network (5 wrong
 * tries from all others) is refused without comparing, so a guess there learns nothing; a used or
 * expired code is named only to a caller who presents it. The comparison is constant-time.
 */
export function checkCode(record: CodeRecord | undefined, code: string, now: number, source: string): CodeCheck {
  if (!record) return { outcome: "refused" };
  const side = sideOf(record, source);
  if (record.wrongTries >= CODE_MAX_WRONG_TRIES) return { outcome: "refused" };
  if (side === "other" && (record.otherTries ?? 0) >= CODE_MAX_OTHER_TRIES) return { outcome: "refused" };
  const match = matches(record, code);
  if (record.consumedAt !== undefined) return match ? { outcome: "used" } : { outcome: "refused" };
  if (record.expiresAt <= now) return match ? { outcome: "expired" } : { outcome: "refused" };
  return match ? { outcome: "match" } : { outcome: "wrong", side };
}
