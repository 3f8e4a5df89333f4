import { config } from "#config";
import { defaultKeyStore } from "#adapters/dynamodb-key-store.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { defaultMailer } from "#adapters/sesv2-mailer.ts";
import { requestCode, type KeyServiceDeps } from "#domain/key-service.ts";
import { REGISTER_PER_ADDRESS } from "#domain/rate-limit.ts";
import { registerRoute } from "#http/contracts/auth.ts";
import { httpHandler } from "#http/pipeline.ts";
import { json } from "#http/responses.ts";

/** createRegisterHandler builds GET /v1/auth/register on the given store, mailer and clock. */
export function createRegisterHandler(deps: KeyServiceDeps) {
  return httpHandler(registerRoute, async (req) =>
    json(200, await requestCode(deps, { email: req.query.email, sourceIp: req.sourceIp }), { "Cache-Control": "no-store" }),
  );
}

/** handler answers GET /v1/auth/register with DynamoDB, SES and the system clock. */
export const handler = createRegisterHandler({
  store: defaultKeyStore(),
  mailer: defaultMailer(),
  now: Date.now,
  limits: { perAddress: REGISTER_PER_ADDRESS, perAddressDaily: config.keys.registerPerAddressDaily, perIp: config.keys.registerPerIp },
  warn: (message, data) => logger.warn(message, data),
});
