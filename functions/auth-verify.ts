import { verifyCode, type VerifyDeps } from "#domain/keys/key-service.ts";
import { verifyCodeRoute } from "#http/contracts/auth.ts";
import { publicBaseUrl } from "#http/public-url.ts";
import { json } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { keyServiceDeps } from "#wiring/keys.ts";

/** makeVerifyHandler builds GET /v1/auth/verify on a container (its store, mailer and clock, unless deps are given). */
export function makeVerifyHandler(container: Container, deps: VerifyDeps = keyServiceDeps(container)) {
  const { publicUrl, runtime } = container.config;
  return httpHandler(container, verifyCodeRoute, async (req) => {
    const baseUrl = publicBaseUrl(req.event, { publicUrl, runtime, localServerUrl: container.localServerUrl() });
    return json(200, await verifyCode(deps, { email: req.query.email, code: req.query.code, baseUrl, sourceIp: req.sourceIp }), {
      "Cache-Control": "no-store",
    });
  });
}

/** handler answers GET /v1/auth/verify with this process's container. */
export const handler = makeVerifyHandler(processContainer());
