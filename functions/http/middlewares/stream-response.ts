import { toStreamBody } from "#http/streaming.ts";
import type { PipelineMiddleware } from "#http/middlewares/chain.ts";

/**
 * streamResponse turns a streaming route's answer into the streamed form (functions/http/streaming.ts):
 * a binary body as raw bytes rather than base64, with its Content-Length; on AWS refused before the
 * first byte when the time left cannot write it. First in the chain, so its `after` runs last.
 */
export function streamResponse(runtime: "aws" | "local"): PipelineMiddleware {
  return {
    name: "streamResponse",
    after: (request) => {
      if (!request.response) return;
      const remainingMs = runtime === "aws" ? request.context.getRemainingTimeInMillis() : undefined;
      request.response = toStreamBody(request.response, remainingMs === undefined ? {} : { remainingMs });
    },
  };
}
