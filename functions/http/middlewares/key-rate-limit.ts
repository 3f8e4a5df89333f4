import { partsOf, type PipelineMiddleware } from "#http/middlewares/chain.ts";
import { jobRunOf } from "#http/jobs.ts";

/**
 * keyRateLimit counts the request against its key's per-minute limit, or lets the guard's
 * RATE_LIMIT_ERROR through. In the chain of authorised routes only, after authContext, and before
 * the body is even decoded: a refused request costs one table write.
 *
 * It is counted in every authorised function, not in the authorizer: on AWS the gateway caches
 * the authorizer's answer (60 s), so most requests never reach it.
 */
export function keyRateLimit(guard: (keyId: string) => Promise<void>): PipelineMiddleware {
  return {
    name: "keyRateLimit",
    before: async (request) => {
      const { principal } = partsOf(request.event);
      // A job's run was counted when it was submitted.
      if (principal && jobRunOf(request.event) === undefined) await guard(principal.keyId);
    },
  };
}
