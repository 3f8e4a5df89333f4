import { logger } from "#adapters/powertools-logger.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { signing } from "#wiring/signing.ts";

// The CRL issuer on AWS: the one function (with sign, for B-LT) that may sign with the root key
// in KMS. An EventBridge rule runs it daily (infra/crl-issuer.ts); it signs a new CRL only when
// the kept one (identity-root.crl in the identity bucket) is missing, another root's, or has
// fewer than 3 of its 7 days left, so GET /v1/verify/crl never costs a signature.

/** CrlIssued is what a run reports (also in its log). */
export interface CrlIssued {
  thisUpdate: string;
  nextUpdate: string;
}

/** makeCrlIssuer builds the scheduled CRL issuer on a container; the scheduled event itself carries nothing it needs. */
export function makeCrlIssuer(container: Container) {
  return async (): Promise<CrlIssued> => {
    const crl = await signing(container).keptCrl();
    const answer = { thisUpdate: crl.thisUpdate.toISOString(), nextUpdate: crl.nextUpdate.toISOString() };
    logger.info("the kept CRL is fresh", answer);
    return answer;
  };
}

/** handler keeps the CRL fresh with this process's container. */
export const handler = makeCrlIssuer(processContainer());
