import { verifyCrlRoute } from "#http/contracts/verify.ts";
import { binary } from "#http/responses.ts";
import { httpHandler } from "#wiring/http.ts";
import { currentCrl } from "#wiring/signing.ts";

/** handler answers GET /v1/verify/crl: a freshly signed CRL of Signet's root CA, locally or in AWS KMS (none revoked). */
export const handler = httpHandler(verifyCrlRoute, async () => binary(200, await currentCrl(), "application/pkix-crl", { "Cache-Control": "no-store" }));
