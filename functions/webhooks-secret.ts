import { secretsFor, type SecretDeps } from "#domain/webhooks/webhook-secrets.ts";
import { callerOf } from "#http/caller.ts";
import { webhookSecretRoute } from "#http/contracts/webhooks.ts";
import { json } from "#http/responses.ts";
import { secretView } from "#http/webhook-secret.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { webhookSecretDeps } from "#wiring/webhooks.ts";

/** makeWebhookSecretHandler builds GET /v1/webhooks/secret on a container (its key table, unless deps are given). */
export function makeWebhookSecretHandler(container: Container, deps: SecretDeps = webhookSecretDeps(container.config)) {
  return httpHandler(container, webhookSecretRoute, async (req) => {
    const secrets = await secretsFor(deps, callerOf(req.principal).keyId);
    return json(200, secretView(secrets, deps.now()), { "Cache-Control": "no-store" });
  });
}

/** handler answers GET /v1/webhooks/secret with this process's container. */
export const handler = makeWebhookSecretHandler(processContainer());
