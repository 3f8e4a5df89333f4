import type { APIGatewayProxyEvent } from "aws-lambda";
import { partsOf, type PipelineMiddleware } from "#http/middlewares/chain.ts";
import { rawBodyOf } from "#http/raw-body.ts";

function decodeBody(event: APIGatewayProxyEvent): Buffer {
  const attached = rawBodyOf(event); // the local server's bytes: no base64 round trip
  if (attached) return attached;
  if (event.body === null || event.body === undefined) return Buffer.alloc(0);
  return event.isBase64Encoded ? Buffer.from(event.body, "base64") : Buffer.from(event.body, "utf8");
}

/** bodyDecoding reads the body's bytes: decoded when API Gateway sent base64 (binaryMediaTypes), as is otherwise. */
export function bodyDecoding(): PipelineMiddleware {
  return {
    name: "bodyDecoding",
    before: (request) => {
      partsOf(request.event).rawBody = decodeBody(request.event);
    },
  };
}
