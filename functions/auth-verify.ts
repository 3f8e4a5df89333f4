import { config } from "#config";
import { defaultKeyStore } from "#adapters/dynamodb-key-store.ts";
import { logger } from "#adapters/powertools-logger.ts";
import { defaultMailer } from "#adapters/sesv2-mailer.ts";
import { verifyCode, type KeyServiceDeps } from "#domain/key-service.ts";
import { REGISTER_PER_ADDRESS } from "#domain/rate-limit.ts";
import { verifyCodeRoute } from "#http/contracts/auth.ts";
import { httpHandler } from "#http/pipeline.ts";
import { json } from "#http/responses.ts";

/** createVerifyHandler builds GET /v1/auth/verify on the given store, mailer and clock. */
export function createVerifyHandler(deps: KeyServiceDeps) {
  return httpHandler(verifyCodeRoute, async (req) =>
    json(200, await verifyCode(deps, { email: req.query.email, code: req.query.code }), { "Cache-Control": "no-store" }),
  );
}

/** handler answers GET /v1/auth/verify with DynamoDB, SES and the system clock. */
export const handler = createVerifyHandler({
  store: defaultKeyStore(),
  mailer: defaultMailer(),
  now: Date.now,
  limits: { perAddress: REGISTER_PER_ADDRESS, perAddressDaily: config.keys.registerPerAddressDaily, perIp: config.keys.registerPerIp },
  warn: (message, data) => logger.warn(message, data),
});
