import { requestCode, type KeyServiceDeps } from "#domain/keys/key-service.ts";
import { registerRoute } from "#http/contracts/auth.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { keyServiceDeps } from "#wiring/keys.ts";

/** createRegisterHandler builds GET /v1/auth/register on the given store, mailer and clock. */
export function createRegisterHandler(deps: KeyServiceDeps) {
  return httpHandler(registerRoute, async (req) =>
    json(200, await requestCode(deps, { email: req.query.email, sourceIp: req.sourceIp }), { "Cache-Control": "no-store" }),
  );
}

/** handler answers GET /v1/auth/register with DynamoDB, SES and the system clock. */
export const handler = createRegisterHandler(keyServiceDeps());
