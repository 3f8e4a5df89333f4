import { listKeys, type KeyManagementDeps } from "#domain/keys/key-management.ts";
import { listKeysRoute } from "#http/contracts/keys.ts";
import { callerOf } from "#http/caller.ts";
import { json } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { keyManagementDeps } from "#wiring/keys.ts";

/** makeListKeysHandler builds GET /v1/keys on a container (its key store, unless deps are given). */
export function makeListKeysHandler(container: Container, deps: Pick<KeyManagementDeps, "store"> = keyManagementDeps(container)) {
  return httpHandler(container, listKeysRoute, async (req) => json(200, await listKeys(deps, callerOf(req.principal)), { "Cache-Control": "no-store" }));
}

/** handler answers GET /v1/keys with this process's container. */
export const handler = makeListKeysHandler(processContainer());
