import { verifyCode, type VerifyDeps } from "#domain/keys/key-service.ts";
import { verifyCodeRoute } from "#http/contracts/auth.ts";
import { httpHandler } from "#wiring/http.ts";
import { publicBaseUrl } from "#http/public-url.ts";
import { json } from "#http/responses.ts";
import { keyServiceDeps } from "#wiring/keys.ts";

/** createVerifyHandler builds GET /v1/auth/verify on the given store, mailer and clock. */
export function createVerifyHandler(deps: VerifyDeps) {
  return httpHandler(verifyCodeRoute, async (req) =>
    json(200, await verifyCode(deps, { email: req.query.email, code: req.query.code, baseUrl: publicBaseUrl(req.event), sourceIp: req.sourceIp }), {
      "Cache-Control": "no-store",
    }),
  );
}

/** handler answers GET /v1/auth/verify with DynamoDB, SES and the system clock. */
export const handler = createVerifyHandler(keyServiceDeps());
