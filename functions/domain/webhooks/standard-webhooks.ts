import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks v1 (standardwebhooks.com): a message is signed with HMAC-SHA256 over
 * `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the bytes of a `whsec_<base64>` secret,
 * and sent as `webhook-signature: v1,<base64 of the MAC>`; several space-separated entries
 * while a secret is being rotated.
 */

/** SECRET_PREFIX starts every signing secret. */
const SECRET_PREFIX = "whsec_";

/** SECRET_BYTES is the size of a new secret's key (the spec asks for 24 to 64). */
const SECRET_BYTES = 32;

/** newSigningSecret is a fresh random secret: whsec_ and the base64 of 32 random bytes. */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_BYTES).toString("base64")}`;
}

/** newWebhookId is a fresh webhook-id: msg_ and 24 random bytes in base64url. */
export function newWebhookId(): string {
  return `msg_${randomBytes(24).toString("base64url")}`;
}

/** SignedMessage is what a signature covers: the webhook-id, the webhook-timestamp (Unix seconds) and the body's exact text. */
export interface SignedMessage {
  id: string;
  timestamp: number;
  body: string;
}

/** signatureOf is one `v1,<base64>` entry: HMAC-SHA256 keyed with the secret's bytes over id.timestamp.body. */
export function signatureOf(secret: string, message: SignedMessage): string {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("a signing secret starts with whsec_");
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  const mac = createHmac("sha256", key).update(`${message.id}.${message.timestamp}.${message.body}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

/** webhookHeaders are the three headers of a delivery, one signature entry per secret (current first). */
export function webhookHeaders(secrets: readonly string[], message: SignedMessage): Record<string, string> {
  return {
    "webhook-id": message.id,
    "webhook-timestamp": String(message.timestamp),
    "webhook-signature": secrets.map((secret) => signatureOf(secret, message)).join(" "),
  };
}
