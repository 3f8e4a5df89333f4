import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";
import type { PipelineMiddleware } from "#http/middlewares/chain.ts";

// Lambda refuses synchronous responses above 6 MB (the payload includes headers and the envelope).
const LAMBDA_RESPONSE_LIMIT = 6 * 1024 * 1024 - 32 * 1024;

/**
 * lambdaResponseLimit refuses a buffered answer Lambda could not return (413 instead of Lambda's
 * own opaque failure). Only in the chain of buffered routes on AWS; streamed answers have no cap.
 */
export function lambdaResponseLimit(): PipelineMiddleware {
  return {
    name: "lambdaResponseLimit",
    after: (request) => {
      const body = request.response?.body ?? "";
      if (body.length > LAMBDA_RESPONSE_LIMIT) {
        throw new SignetError(
          "PAYLOAD_TOO_LARGE",
          `The result is ${formatBytes(body.length)} encoded, over the 6 MB a Lambda response may carry; split the document or use the local server.`,
        );
      }
    },
  };
}
