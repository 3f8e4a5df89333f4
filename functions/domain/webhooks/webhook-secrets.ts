import { SignetError } from "#domain/shared/errors.ts";
import { newSigningSecret } from "#domain/webhooks/standard-webhooks.ts";
import type { SecretStore, SigningSecrets } from "#domain/webhooks/webhook-store.ts";

/** ROTATION_OVERLAP_MS is how long a replaced secret still signs beside the new one: 24 hours. */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** SecretDeps are the store and the clock. */
export interface SecretDeps {
  store: SecretStore;
  now: () => number;
}

const busy = () => new SignetError("SERVICE_UNAVAILABLE", "The webhook secret changed while it was being read; retry in a moment.", { retryAfterSeconds: 1 });

/** secretsFor is the key's secrets, made on first use (so a webhook is signed before its owner ever read the secret). */
export async function secretsFor(deps: SecretDeps, keyId: string): Promise<SigningSecrets> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await deps.store.secretsOf(keyId);
    if (stored) return stored;
    const made = { current: newSigningSecret(), createdAt: deps.now() };
    if (await deps.store.putSecrets(keyId, made, undefined)) return made;
  }
  throw busy();
}

/** rotateSecret makes a new current secret; the old one keeps signing beside it for ROTATION_OVERLAP_MS. */
export async function rotateSecret(deps: SecretDeps, keyId: string): Promise<SigningSecrets> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const stored = await secretsFor(deps, keyId);
    const now = deps.now();
    const next = { current: newSigningSecret(), createdAt: now, previous: stored.current, previousUntil: now + ROTATION_OVERLAP_MS };
    if (await deps.store.putSecrets(keyId, next, stored.current)) return next;
  }
  throw busy();
}

/** signingSecrets are the secrets that sign at `now`: the current one first, then the replaced one while it overlaps. */
export function signingSecrets(secrets: SigningSecrets, now: number): string[] {
  const overlapping = secrets.previous !== undefined && secrets.previousUntil !== undefined && now < secrets.previousUntil;
  return overlapping ? [secrets.current, secrets.previous!] : [secrets.current];
}
