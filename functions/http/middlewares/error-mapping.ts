import { toErrorResponse } from "#http/error-response.ts";
import { requestIdOf } from "#http/middlewares/request-facts.ts";
import type { PipelineMiddleware } from "#http/middlewares/chain.ts";
import { toStreamBody } from "#http/streaming.ts";

/**
 * errorMapping turns anything thrown into the answer the one error table gives it
 * (functions/http/error-response.ts): the message below 500, a generic one at 500 with the cause logged.
 */
export function errorMapping(options: { streaming: boolean }): PipelineMiddleware {
  return {
    name: "errorMapping",
    onError: (request) => {
      const response = toErrorResponse(request.error, requestIdOf(request.event));
      // A streamed error answer carries its Content-Length too (streamResponse's `after` does not run on errors).
      request.response = options.streaming ? toStreamBody(response) : response;
    },
  };
}
