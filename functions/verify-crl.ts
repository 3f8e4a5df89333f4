import { verifyCrlRoute } from "#http/contracts/verify.ts";
import { binary, crlCaching } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";
import { signing } from "#wiring/signing.ts";

/** makeVerifyCrlHandler builds GET /v1/verify/crl on a container: the kept CRL of Signet's root CA (none revoked), with caching headers; serving signs nothing. */
export function makeVerifyCrlHandler(container: Container) {
  return httpHandler(container, verifyCrlRoute, async () => {
    const crl = await signing(container).servedCrl();
    return binary(200, crl.der, "application/pkix-crl", crlCaching(crl, new Date()));
  });
}

/** handler answers GET /v1/verify/crl with this process's container. */
export const handler = makeVerifyCrlHandler(processContainer());
