import { revokeOwnKey, type KeyManagementDeps } from "#domain/keys/key-management.ts";
import { callerOf } from "#http/caller.ts";
import { revokeKeyRoute } from "#http/contracts/keys.ts";
import { json } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { keyManagementDeps } from "#wiring/keys.ts";

/** makeRevokeKeyHandler builds DELETE /v1/keys/{id} on a container (its key store and clock, unless deps are given). */
export function makeRevokeKeyHandler(container: Container, deps: KeyManagementDeps = keyManagementDeps(container)) {
  return httpHandler(container, revokeKeyRoute, async (req) =>
    json(200, await revokeOwnKey(deps, callerOf(req.principal), req.params.id!), { "Cache-Control": "no-store" }),
  );
}

/** handler answers DELETE /v1/keys/{id} with this process's container. */
export const handler = makeRevokeKeyHandler(processContainer());
