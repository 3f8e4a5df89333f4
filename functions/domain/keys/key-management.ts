import { KEY_ID_PATTERN, REVOKE_TOKEN_PATTERN, hashApiKey } from "#domain/keys/api-key.ts";
import { normalizeEmail } from "#domain/keys/email-address.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { ApiKeyRecord, KeyStore } from "#domain/keys/key-store.ts";

/** KeyManagementDeps is what listing and revoking keys need. */
export interface KeyManagementDeps {
  store: KeyStore;
  /** The clock, epoch milliseconds. */
  now: () => number;
}

/** Caller is the key a request came with, as the authorizer identified it. */
export interface Caller {
  keyId: string;
  /** The address the key was issued to (display form). */
  email: string;
}

/** KeySummary is what a key's owner may see of it: never the key or its hash. */
export interface KeySummary {
  id: string;
  last4: string;
  createdAt: string;
  lastUsedAt: string;
  /** True for the key this request came with. */
  current: boolean;
}

/** RevokedKey is the answer of a revocation. */
export interface RevokedKey {
  id: string;
  last4: string;
  revokedAt: string;
  message: string;
}

const summaryOf = (record: ApiKeyRecord, caller?: Caller): KeySummary => ({
  id: record.keyId,
  last4: record.last4 ?? "",
  createdAt: record.createdAt,
  lastUsedAt: record.lastUsedAt,
  current: record.keyId === caller?.keyId,
});

function ownerOf(caller: Caller): string {
  const check = normalizeEmail(caller.email);
  // The authorizer only lets keys through whose stored address was valid when it was issued.
  if (!check.ok) throw new Error("the caller's key carries no valid address");
  return check.address.lookup;
}

/** listKeys returns the caller's address's live keys, oldest first, marking the caller's own. */
export async function listKeys(deps: Pick<KeyManagementDeps, "store">, caller: Caller): Promise<{ keys: KeySummary[] }> {
  const records = await deps.store.listKeys(ownerOf(caller));
  const keys = records.map((record) => summaryOf(record, caller)).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  return { keys };
}

const notYours = (id: string) => new SignetError("NOT_FOUND", `No live key with id ${id} belongs to your address.`, { next: "list-keys" });

/**
 * revokeOwnKey revokes a key of the caller's address (the caller's own included). Another
 * address's id, an unknown id and a revoked key all answer the same 404, so ids cannot be probed.
 */
export async function revokeOwnKey(deps: KeyManagementDeps, caller: Caller, id: string): Promise<RevokedKey> {
  if (!KEY_ID_PATTERN.test(id)) {
    throw new SignetError("VALIDATION_ERROR", "The key id is not valid; see details.", {
      details: [{ field: "path.id", issue: "must be a key id as the key list gives it (key_ + 16 letters and digits)" }],
      next: "list-keys",
    });
  }
  const record = await deps.store.findOwnedKey(ownerOf(caller), id);
  if (!record) throw notYours(id);
  const revokedAt = new Date(deps.now()).toISOString();
  if (!(await deps.store.revokeKey(record, revokedAt))) throw notYours(id);
  const self = id === caller.keyId ? " It was the key of this request: use another one from now on." : "";
  return { id, last4: record.last4 ?? "", revokedAt, message: `The key is revoked: every call with it now answers 401.${self}` };
}

/** LinkPreview is what an unconfirmed revocation link shows: the key, and the link that confirms. */
export interface LinkPreview {
  key: { id: string; last4: string; createdAt: string };
  message: string;
}

const deadLink = () =>
  new SignetError(
    "NOT_FOUND",
    "This revocation link is unknown, already used or expired (links work once, for 7 days). If the key still works, revoke it by its id using any key of the address.",
    { next: "revoke-key" },
  );

function checkToken(token: string): void {
  if (!REVOKE_TOKEN_PATTERN.test(token)) {
    throw new SignetError("VALIDATION_ERROR", "The revocation token is not valid; see details.", {
      details: [{ field: "query.token", issue: "must be the token of the link in the key notice e-mail (rvk_ + 32 letters and digits); copy the whole link" }],
    });
  }
}

async function liveLink(deps: KeyManagementDeps, token: string) {
  checkToken(token);
  const tokenHash = hashApiKey(token);
  const link = await deps.store.getRevokeLink(tokenHash);
  if (!link || link.expiresAt <= deps.now()) throw deadLink();
  const record = await deps.store.getKey(link.keyHash);
  if (!record || record.revokedAt) throw deadLink();
  return { tokenHash, record };
}

/**
 * useRevokeLink handles GET /v1/keys/revoke?token=...: without confirm it only shows which key
 * the link revokes (mail scanners that open links must not revoke keys); with confirm=yes it
 * revokes the key and uses the link up. It needs no API key: the token is the authority.
 */
export async function useRevokeLink(deps: KeyManagementDeps, input: { token: string; confirm: boolean }): Promise<LinkPreview | RevokedKey> {
  const { tokenHash, record } = await liveLink(deps, input.token);
  if (!input.confirm) {
    return {
      key: { id: record.keyId, last4: record.last4 ?? "", createdAt: record.createdAt },
      message: "Nothing is revoked yet. To revoke this key, open this link again with &confirm=yes added.",
    };
  }
  const revokedAt = new Date(deps.now()).toISOString();
  if (!(await deps.store.revokeKey(record, revokedAt, tokenHash))) throw deadLink();
  return { id: record.keyId, last4: record.last4 ?? "", revokedAt, message: "The key is revoked: every call with it now answers 401." };
}
