import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";
import { partsOf, type PipelineMiddleware } from "#http/middlewares/chain.ts";

/** RequestSizeLimits are the request body cap and the document size the 413 answer points to. */
export interface RequestSizeLimits {
  maxRequestBytes: number;
  /** Named in the 413 answer's hint (upload documents up to this size). */
  maxDocumentBytes: number;
}

/** requestSizeLimit refuses a body over maxRequestBytes with 413, pointing to POST /v1/uploads. After bodyDecoding. */
export function requestSizeLimit(limits: RequestSizeLimits): PipelineMiddleware {
  return {
    name: "requestSizeLimit",
    before: (request) => {
      const size = partsOf(request.event).rawBody?.length ?? 0;
      if (size > limits.maxRequestBytes) {
        throw new SignetError(
          "PAYLOAD_TOO_LARGE",
          `The request body is ${size} bytes; the limit is ${limits.maxRequestBytes}. Upload documents (up to ${formatBytes(limits.maxDocumentBytes)}) with POST /v1/uploads and send the reference instead.`,
        );
      }
    },
  };
}
