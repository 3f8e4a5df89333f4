import * as z from "zod";
import { defineRoute } from "#http/contract.ts";

const signingSecret = z
  .object({
    secret: z.string().meta({
      description: "The current signing secret: whsec_ and 32 random bytes in base64.",
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwbJkQ0G3e7nM=",
    }),
    createdAt: z.iso.datetime().meta({ description: "When the current secret was made." }),
    previousSecretSignsUntil: z.iso
      .datetime()
      .optional()
      .meta({ description: "After a rotation: until then every webhook also carries a signature made with the replaced secret." }),
  })
  .meta({ id: "WebhookSecret" });

const secretDescription =
  "Webhooks of this key's jobs are signed as Standard Webhooks v1 says: webhook-signature is v1, and the base64 HMAC-SHA256, keyed with the bytes after whsec_, of webhook-id.webhook-timestamp.body (docs/api.md, Webhooks, has a worked example).";

/** webhookSecretRoute: GET /v1/webhooks/secret shows the calling key's webhook signing secret, made on first use. */
export const webhookSecretRoute = defineRoute({
  name: "webhooks-secret",
  method: "GET",
  path: "/v1/webhooks/secret",
  auth: true,
  tag: "Webhooks",
  summary: "Show your webhook signing secret",
  description: `Shows the secret that signs the webhooks of the calling key's jobs (one per API key; made on the first call or the first webhook). ${secretDescription}`,
  body: { kind: "none" },
  success: {
    description: "The key's signing secret.",
    contentType: "application/json",
    schema: signingSecret,
    example: { secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwbJkQ0G3e7nM=", createdAt: "2026-11-27T12:00:00.000Z" },
  },
  errors: ["RATE_LIMIT_ERROR", "SERVICE_UNAVAILABLE"],
});

/** rotateWebhookSecretRoute: POST /v1/webhooks/secret/rotate replaces the key's secret; the old one signs beside it for 24 hours. */
export const rotateWebhookSecretRoute = defineRoute({
  name: "webhooks-secret-rotate",
  method: "POST",
  path: "/v1/webhooks/secret/rotate",
  auth: true,
  tag: "Webhooks",
  summary: "Rotate your webhook signing secret",
  description: `Makes a new signing secret for the calling key. For 24 hours every webhook carries two space-separated signatures, the new secret's first and the replaced one's second, so receivers can switch without losing one; after that only the new secret signs. Rotating again within the 24 hours drops the oldest. ${secretDescription}`,
  body: { kind: "none" },
  success: {
    description: "The new secret, and until when the replaced one still signs.",
    contentType: "application/json",
    schema: signingSecret,
    example: {
      secret: "whsec_q3Ww0Xn3mS6dUe1mO8Cz4Zb9Yl2Pa7Kr5Tj1Hv6Gf0E=",
      createdAt: "2026-11-28T09:30:00.000Z",
      previousSecretSignsUntil: "2026-11-29T09:30:00.000Z",
    },
  },
  errors: ["RATE_LIMIT_ERROR", "SERVICE_UNAVAILABLE"],
});
