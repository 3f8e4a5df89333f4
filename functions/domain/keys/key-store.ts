import type { CodeRecord, TrySide } from "#domain/keys/verification-code.ts";

/** ApiKeyRecord is a stored key: its SHA-256 hash, never the key. */
export interface ApiKeyRecord {
  keyHash: string;
  /** The key's public id (`key_` + random characters; not derived from the key). */
  keyId: string;
  /** The address the key was issued to (display form). */
  email: string;
  /** The address in lookup form: the owner the key is listed under (absent on keys minted before listing existed). */
  owner?: string;
  /** The key's last 4 characters (what a person sees to tell keys apart). */
  last4?: string;
  /** ISO-8601. */
  createdAt: string;
  /** ISO-8601; updated at most once a minute. */
  lastUsedAt: string;
  /** ISO-8601, when the key was revoked; a revoked key is refused with 401. */
  revokedAt?: string;
  /** SHA-256 (hex) of the key's one-time revocation link token, while the link is pending. */
  revokeTokenHash?: string;
}

/** RevokeLink is the stored half of a one-time revocation link: the token's hash and its key. */
export interface RevokeLink {
  tokenHash: string;
  keyHash: string;
  /** Epoch ms after which the link no longer works. */
  expiresAt: number;
}

/**
 * RateSlotStore keeps the slots of sliding-window rate limits (see planSlots). Every write is one
 * conditional single-item write, so concurrent callers cannot take the same slot.
 */
export interface RateSlotStore {
  /** readRateSlots returns slot number -> epoch-ms time stored in it, for one bucket. */
  readRateSlots(bucket: string): Promise<Map<number, number>>;
  /** claimRateSlot writes `at` into a slot if it still holds `expected` (undefined: empty); false if not. */
  claimRateSlot(bucket: string, slot: number, expected: number | undefined, at: number, windowSeconds: number): Promise<boolean>;
  /** releaseRateSlot empties a slot if it still holds `at` (an event that did not happen after all). */
  releaseRateSlot(bucket: string, slot: number, at: number): Promise<void>;
}

/** KeyRateStore counts a key's requests per fixed window (the per-key rate limit). */
export interface KeyRateStore {
  /**
   * countKeyRequest adds one request to a key's count for the window starting at `windowStart`
   * unless the count has reached `limit`; true when counted, false when the window is full.
   * `expiresAt` (epoch ms) is when the counter may be deleted.
   */
  countKeyRequest(keyId: string, windowStart: number, limit: number, expiresAt: number): Promise<boolean>;
}

/** CodeStore keeps one pending e-mail code per address; a new code replaces the previous one. */
export interface CodeStore {
  /** putCode stores a new code in place of the pending one, in one write; the record it replaced, if any. */
  putCode(record: CodeRecord): Promise<CodeRecord | undefined>;
  getCode(address: string): Promise<CodeRecord | undefined>;
  /**
   * addWrongTry counts a wrong try on one side (the requester's network, or all others) if the
   * code is still live and that side still has tries; the side's new count, or undefined if not.
   */
  addWrongTry(address: string, codeId: string, now: number, side: TrySide): Promise<number | undefined>;
  /**
   * withdrawCode undoes putCode if the code is still the one with codeId: puts `previous` back
   * exactly as it was, or deletes the code when there was none. A newer code is left alone.
   */
  withdrawCode(address: string, codeId: string, previous: CodeRecord | undefined): Promise<void>;
}

/** CodeClaim names the live code a new key is minted from. */
export interface CodeClaim {
  address: string;
  codeId: string;
  /** Epoch ms: the code must still be live at this time. */
  now: number;
}

/** ApiKeyStore keeps issued keys by hash. */
export interface ApiKeyStore {
  /**
   * mintKey marks a live code used and stores the new key in one transaction: either both happen
   * or neither (a code is unused or has minted exactly one key). False when the code was no
   * longer live (used, dead, expired, replaced) or a concurrent call took it; nothing is written then.
   */
  mintKey(claim: CodeClaim, key: ApiKeyRecord, link: RevokeLink): Promise<boolean>;
  getKey(keyHash: string): Promise<ApiKeyRecord | undefined>;
  /** listKeys returns the live (not revoked) keys listed under an owner (lookup form). */
  listKeys(owner: string): Promise<ApiKeyRecord[]>;
  /** findOwnedKey returns an owner's live key by public id; undefined for any other owner's id. */
  findOwnedKey(owner: string, keyId: string): Promise<ApiKeyRecord | undefined>;
  /**
   * revokeKey marks a key revoked, unlists it and drops its revocation link, in one transaction.
   * With `linkTokenHash` the link must still exist (so a link works once, even under races).
   * False when the key was already revoked or the link already used.
   */
  revokeKey(key: ApiKeyRecord, at: string, linkTokenHash?: string): Promise<boolean>;
  getRevokeLink(tokenHash: string): Promise<RevokeLink | undefined>;
  /** touchKey sets lastUsedAt to `at` unless it is already at or after `notBefore` (ISO strings). */
  touchKey(keyHash: string, at: string, notBefore: string): Promise<void>;
}

/**
 * KeyStore is everything the API-key feature keeps. Adapters raise SignetError
 * SERVICE_UNAVAILABLE when the store cannot be reached.
 */
export interface KeyStore extends RateSlotStore, CodeStore, ApiKeyStore, KeyRateStore {}
