import { useRevokeLink, type KeyManagementDeps } from "#domain/keys/key-management.ts";
import { revokeLinkRoute } from "#http/contracts/keys.ts";
import { json } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { keyManagementDeps } from "#wiring/keys.ts";

/** makeRevokeLinkHandler builds GET /v1/keys/revoke?token= on a container (its key store and clock, unless deps are given). */
export function makeRevokeLinkHandler(container: Container, deps: KeyManagementDeps = keyManagementDeps(container)) {
  return httpHandler(container, revokeLinkRoute, async (req) =>
    json(200, await useRevokeLink(deps, { token: req.query.token, confirm: req.query.confirm === "yes" }), { "Cache-Control": "no-store" }),
  );
}

/** handler answers GET /v1/keys/revoke with this process's container. */
export const handler = makeRevokeLinkHandler(processContainer());
