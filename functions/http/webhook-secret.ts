import type { SigningSecrets } from "#domain/webhooks/webhook-store.ts";

/** secretView is a key's signing secrets as the secret routes show them: the current one, and until when the replaced one signs. */
export function secretView(secrets: SigningSecrets, now: number) {
  const overlapping = secrets.previousUntil !== undefined && now < secrets.previousUntil;
  return {
    secret: secrets.current,
    createdAt: new Date(secrets.createdAt).toISOString(),
    ...(overlapping ? { previousSecretSignsUntil: new Date(secrets.previousUntil!).toISOString() } : {}),
  };
}
