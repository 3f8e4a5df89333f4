import { revokeOwnKey, type KeyManagementDeps } from "#domain/keys/key-management.ts";
import { callerOf } from "#http/caller.ts";
import { revokeKeyRoute } from "#http/contracts/keys.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { keyManagementDeps } from "#wiring/keys.ts";

/** createRevokeKeyHandler builds DELETE /v1/keys/{id} on the given store and clock. */
export function createRevokeKeyHandler(deps: KeyManagementDeps) {
  return httpHandler(revokeKeyRoute, async (req) =>
    json(200, await revokeOwnKey(deps, callerOf(req.principal), req.params.id!), { "Cache-Control": "no-store" }),
  );
}

/** handler answers DELETE /v1/keys/{id} with DynamoDB and the system clock. */
export const handler = createRevokeKeyHandler(keyManagementDeps());
