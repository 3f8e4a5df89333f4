import { requestCode, type KeyServiceDeps } from "#domain/keys/key-service.ts";
import { registerRoute } from "#http/contracts/auth.ts";
import { json } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { keyServiceDeps } from "#wiring/keys.ts";

/** makeRegisterHandler builds GET /v1/auth/register on a container (its store, mailer and clock, unless deps are given). */
export function makeRegisterHandler(container: Container, deps: KeyServiceDeps = keyServiceDeps(container)) {
  return httpHandler(container, registerRoute, async (req) =>
    json(200, await requestCode(deps, { email: req.query.email, sourceIp: req.sourceIp }), { "Cache-Control": "no-store" }),
  );
}

/** handler answers GET /v1/auth/register with this process's container. */
export const handler = makeRegisterHandler(processContainer());
