import { config } from "#config";
import { rotateSecret, type SecretDeps } from "#domain/webhooks/webhook-secrets.ts";
import { callerOf } from "#http/caller.ts";
import { rotateWebhookSecretRoute } from "#http/contracts/webhooks.ts";
import { json } from "#http/responses.ts";
import { secretView } from "#http/webhook-secret.ts";
import { httpHandler } from "#wiring/http.ts";
import { webhookSecretDeps } from "#wiring/webhooks.ts";

/** createRotateWebhookSecretHandler builds POST /v1/webhooks/secret/rotate on the given secret store. */
export function createRotateWebhookSecretHandler(deps: SecretDeps) {
  return httpHandler(rotateWebhookSecretRoute, async (req) => {
    const secrets = await rotateSecret(deps, callerOf(req.principal).keyId);
    return json(200, secretView(secrets, deps.now()), { "Cache-Control": "no-store" });
  });
}

/** handler answers POST /v1/webhooks/secret/rotate with the key table. */
export const handler = createRotateWebhookSecretHandler(webhookSecretDeps(config));
