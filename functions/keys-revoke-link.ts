import { useRevokeLink, type KeyManagementDeps } from "#domain/keys/key-management.ts";
import { revokeLinkRoute } from "#http/contracts/keys.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { keyManagementDeps } from "#wiring/keys.ts";

/** createRevokeLinkHandler builds GET /v1/keys/revoke?token= on the given store and clock. */
export function createRevokeLinkHandler(deps: KeyManagementDeps) {
  return httpHandler(revokeLinkRoute, async (req) =>
    json(200, await useRevokeLink(deps, { token: req.query.token, confirm: req.query.confirm === "yes" }), { "Cache-Control": "no-store" }),
  );
}

/** handler answers GET /v1/keys/revoke with DynamoDB and the system clock. */
export const handler = createRevokeLinkHandler(keyManagementDeps());
