import { rotateSecret, type SecretDeps } from "#domain/webhooks/webhook-secrets.ts";
import { callerOf } from "#http/caller.ts";
import { rotateWebhookSecretRoute } from "#http/contracts/webhooks.ts";
import { json } from "#http/responses.ts";
import { secretView } from "#http/webhook-secret.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { webhookSecretDeps } from "#wiring/webhooks.ts";

/** makeRotateWebhookSecretHandler builds POST /v1/webhooks/secret/rotate on a container (its key table, unless deps are given). */
export function makeRotateWebhookSecretHandler(container: Container, deps: SecretDeps = webhookSecretDeps(container.config)) {
  return httpHandler(container, rotateWebhookSecretRoute, async (req) => {
    const secrets = await rotateSecret(deps, callerOf(req.principal).keyId);
    return json(200, secretView(secrets, deps.now()), { "Cache-Control": "no-store" });
  });
}

/** handler answers POST /v1/webhooks/secret/rotate with this process's container. */
export const handler = makeRotateWebhookSecretHandler(processContainer());
