import { verifyCrlRoute } from "#http/contracts/verify.ts";
import { binary, crlCaching } from "#http/responses.ts";
import { httpHandler } from "#wiring/http.ts";
import { servedCrl } from "#wiring/signing.ts";

/** handler answers GET /v1/verify/crl: the kept CRL of Signet's root CA (none revoked), with caching headers; serving signs nothing. */
export const handler = httpHandler(verifyCrlRoute, async () => {
  const crl = await servedCrl();
  return binary(200, crl.der, "application/pkix-crl", crlCaching(crl, new Date()));
});
