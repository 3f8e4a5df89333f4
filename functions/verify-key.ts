import { config } from "#config";
import { SignetError } from "#domain/shared/errors.ts";
import { describeKey, rootCertificate } from "#domain/signing/signing-identity.ts";
import { trustStatement } from "#domain/signing/trust-statement.ts";
import { verifyKeyRoute } from "#http/contracts/verify.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";
import { certificateStore, signingKeyLocation } from "#wiring/signing.ts";

/** handler answers GET /v1/verify/key: the certificate and public key Signet signs with, where the key lives, and what readers will show. */
export const handler = httpHandler(verifyKeyRoute, async () => {
  const identity = await certificateStore().load();
  if (!identity) {
    throw new SignetError(
      "SERVICE_UNAVAILABLE",
      "The service has no signing certificate yet: it is created and published by the first successful POST /v1/sign.",
    );
  }
  const { certificate } = identity;
  return json(200, {
    version: config.version,
    algorithm: describeKey(identity),
    publicKey: certificate.publicKey.export({ type: "spki", format: "pem" }).toString(),
    certificate: certificate.toString(),
    fingerprint: certificate.fingerprint256,
    validFrom: new Date(certificate.validFrom).toISOString(),
    validTo: new Date(certificate.validTo).toISOString(),
    issuer: certificate.issuer.replace(/\n/g, ", "),
    rootCertificate: rootCertificate(identity).toString(),
    chain: identity.chain.map((issuer) => issuer.toString()),
    ...trustStatement(identity, signingKeyLocation()),
  });
});
