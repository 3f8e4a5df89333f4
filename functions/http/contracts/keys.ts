import * as z from "zod";
import { KEY_ID_PATTERN, REVOKE_TOKEN_PATTERN } from "#domain/keys/api-key.ts";
import { defineRoute } from "#http/contract.ts";

const keyId = z.string().regex(KEY_ID_PATTERN, "must be a key id as GET /v1/keys lists it (key_ + 16 letters and digits)");

const keySummary = z
  .object({
    id: keyId.meta({ description: "The key's public id (not the key, not derived from it).", example: "key_3hT9sQw0LmZp2xVb" }),
    last4: z.string().meta({ description: "The key's last 4 characters.", example: "t9m1" }),
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().meta({ description: "Updated at most once a minute per key." }),
    current: z.boolean().meta({ description: "True for the key this request was made with." }),
  })
  .meta({ id: "KeySummary" });

const revokedKey = z.object({ id: z.string(), last4: z.string(), revokedAt: z.iso.datetime(), message: z.string() }).meta({ id: "RevokedKey" });

/** listKeysRoute: GET /v1/keys lists the keys of the caller's address. */
export const listKeysRoute = defineRoute({
  name: "keys-list",
  method: "GET",
  path: "/v1/keys",
  auth: true,
  tag: "API keys",
  summary: "List your API keys",
  description:
    "Lists the live keys of the address the calling key was issued to: public id, last 4 characters, createdAt, lastUsedAt and which one made this call. Never a key or its hash. Revoked keys are not listed.",
  body: { kind: "none" },
  success: {
    description: "The address's live keys, oldest first.",
    contentType: "application/json",
    schema: z.object({ keys: z.array(keySummary) }).meta({ id: "KeyList" }),
    example: {
      keys: [
        { id: "key_3hT9sQw0LmZp2xVb", last4: "t9m1", createdAt: "2026-11-22T10:00:00.000Z", lastUsedAt: "2026-11-22T10:05:00.000Z", current: true },
        { id: "key_Qe81rJkP0aZc7NnD", last4: "Xa2b", createdAt: "2026-11-22T11:00:00.000Z", lastUsedAt: "2026-11-22T11:00:00.000Z", current: false },
      ],
    },
  },
  errors: ["RATE_LIMIT_ERROR", "SERVICE_UNAVAILABLE"],
});

/** revokeKeyRoute: DELETE /v1/keys/{id} revokes a key of the caller's address. */
export const revokeKeyRoute = defineRoute({
  name: "keys-revoke",
  method: "DELETE",
  path: "/v1/keys/{id}",
  auth: true,
  tag: "API keys",
  summary: "Revoke an API key",
  description:
    "Revokes a key of the caller's address, the caller's own included. From then on every call with it answers 401 AUTHENTICATION_ERROR (\"Revoked API key\"); on AWS within the authorizer cache time of 60 seconds. An id of another address, an unknown id and an already revoked key all answer 404, so ids cannot be probed.",
  params: z.strictObject({ id: keyId.meta({ description: "The key's id from GET /v1/keys.", example: "key_Qe81rJkP0aZc7NnD" }) }),
  body: { kind: "none" },
  success: {
    description: "The key is revoked.",
    contentType: "application/json",
    schema: revokedKey,
    example: {
      id: "key_Qe81rJkP0aZc7NnD",
      last4: "Xa2b",
      revokedAt: "2026-11-22T12:00:00.000Z",
      message: "The key is revoked: every call with it now answers 401.",
    },
  },
  errors: ["NOT_FOUND", "RATE_LIMIT_ERROR", "SERVICE_UNAVAILABLE"],
});

/** revokeLinkRoute: GET /v1/keys/revoke?token=...[&confirm=yes] is the one-time link of the key notice e-mail. */
export const revokeLinkRoute = defineRoute({
  name: "keys-revoke-link",
  method: "GET",
  path: "/v1/keys/revoke",
  auth: false,
  tag: "API keys",
  summary: "Revoke a key by the link in its notice e-mail",
  description:
    "The notice e-mail of every new key carries a one-time link that needs no key. Opened as sent, it only shows which key it revokes (mail scanners that open links revoke nothing); with confirm=yes added it revokes the key. The link works once and for 7 days; after that, or once the key is revoked any other way, it answers 404. HEAD is not answered here (405).",
  query: z.strictObject({
    token: z
      .string()
      .regex(REVOKE_TOKEN_PATTERN, "must be the token of the link in the key notice e-mail (rvk_ + 32 letters and digits)")
      .meta({ description: "The token from the e-mail's link.", example: "rvk_N3c8yQ1mWkP4sT7vB0xZ2aL5dR9fH6jE" }),
    confirm: z.enum(["yes"]).optional().meta({ description: "yes revokes the key; without it the link only shows the key." }),
  }),
  body: { kind: "none" },
  success: {
    description: "Without confirm: the key the link revokes. With confirm=yes: the key is revoked.",
    contentType: "application/json",
    schema: z.union([
      z.object({ key: z.object({ id: z.string(), last4: z.string(), createdAt: z.iso.datetime() }), message: z.string() }).meta({ id: "RevokeLinkPreview" }),
      revokedKey,
    ]),
    example: {
      key: { id: "key_Qe81rJkP0aZc7NnD", last4: "Xa2b", createdAt: "2026-11-22T11:00:00.000Z" },
      message: "Nothing is revoked yet. To revoke this key, open this link again with &confirm=yes added.",
    },
  },
  errors: ["NOT_FOUND", "SERVICE_UNAVAILABLE"],
  // With confirm=yes it revokes: HEAD is 405 here, never a revocation nobody sees.
  changesState: true,
});
