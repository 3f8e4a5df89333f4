import { listKeys, type KeyManagementDeps } from "#domain/keys/key-management.ts";
import { listKeysRoute } from "#http/contracts/keys.ts";
import { callerOf } from "#http/caller.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { keyManagementDeps } from "#wiring/keys.ts";

/** createListKeysHandler builds GET /v1/keys on the given store. */
export function createListKeysHandler(deps: Pick<KeyManagementDeps, "store">) {
  return httpHandler(listKeysRoute, async (req) => json(200, await listKeys(deps, callerOf(req.principal)), { "Cache-Control": "no-store" }));
}

/** handler answers GET /v1/keys with DynamoDB. */
export const handler = createListKeysHandler(keyManagementDeps());
