import type * as z from "zod";
import { SignetError } from "#domain/shared/errors.ts";
import type { BodyContract } from "#http/contract.ts";
import { isJsonContentType, parseJsonBody } from "#http/json-body.ts";
import { partsOf, type PipelineMiddleware } from "#http/middlewares/chain.ts";
import { zodDetails } from "#http/zod-details.ts";

function parseBody(schema: z.ZodType, contentType: string | undefined, rawBody: Buffer, maxJsonDepth: number): unknown {
  if (!isJsonContentType(contentType)) {
    throw new SignetError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Send the body as JSON with "Content-Type: application/json" (got ${contentType ? `"${contentType}"` : "none"}).`,
    );
  }
  const value = parseJsonBody(rawBody, maxJsonDepth);
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new SignetError("VALIDATION_ERROR", "The request body does not match the schema; see details.", {
      details: zodDetails(result.error),
    });
  }
  return result.data;
}

/**
 * jsonBodyValidation parses a JSON route's body (Content-Type, nesting depth) and checks it against
 * the route's schema, keeping the parsed value; other routes' bodies are left to their handler.
 * After the header normalizer (lower-case names) and bodyDecoding.
 */
export function jsonBodyValidation(body: BodyContract<z.ZodType>, maxJsonDepth: number): PipelineMiddleware {
  return {
    name: "jsonBodyValidation",
    before: (request) => {
      if (body.kind !== "json") return;
      const parts = partsOf(request.event);
      const headers = (request.event.headers ?? {}) as Record<string, string>;
      parts.body = parseBody(body.schema, headers["content-type"], parts.rawBody ?? Buffer.alloc(0), maxJsonDepth);
    },
  };
}
