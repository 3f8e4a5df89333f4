import { config } from "#config";
import { secretsFor, type SecretDeps } from "#domain/webhooks/webhook-secrets.ts";
import { callerOf } from "#http/caller.ts";
import { webhookSecretRoute } from "#http/contracts/webhooks.ts";
import { json } from "#http/responses.ts";
import { secretView } from "#http/webhook-secret.ts";
import { httpHandler } from "#wiring/http.ts";
import { webhookSecretDeps } from "#wiring/webhooks.ts";

/** createWebhookSecretHandler builds GET /v1/webhooks/secret on the given secret store. */
export function createWebhookSecretHandler(deps: SecretDeps) {
  return httpHandler(webhookSecretRoute, async (req) => {
    const secrets = await secretsFor(deps, callerOf(req.principal).keyId);
    return json(200, secretView(secrets, deps.now()), { "Cache-Control": "no-store" });
  });
}

/** handler answers GET /v1/webhooks/secret with the key table. */
export const handler = createWebhookSecretHandler(webhookSecretDeps(config));
