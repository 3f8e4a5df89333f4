import type * as z from "zod";
import { SignetError } from "#domain/shared/errors.ts";
import type { BodyContract } from "#http/contract.ts";
import { isJsonContentType, type ParsedJsonBody, readJsonBody } from "#http/json-body.ts";
import { partsOf, type PipelineMiddleware } from "#http/middlewares/chain.ts";
import { zodDetails } from "#http/zod-details.ts";

function parseBody(schema: z.ZodType, contentType: string | undefined, rawBody: Buffer, maxJsonDepth: number): unknown {
  if (!isJsonContentType(contentType)) {
    throw new SignetError(
      "UNSUPPORTED_MEDIA_TYPE",
      `Send the body as JSON with "Content-Type: application/json" (got ${contentType ? `"${contentType}"` : "none"}).`,
    );
  }
  const { value, document } = readJsonBody(rawBody, maxJsonDepth, true);
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new SignetError("VALIDATION_ERROR", "The request body does not match the schema; see details.", {
      details: zodDetails(result.error),
    });
  }
  return document ? withDocumentBytes(result.data, document) : result.data;
}

/**
 * withDocumentBytes swaps a validated `document.base64` that readJsonBody decoded from the body
 * (the schema saw its placeholder) for `document.bytes` (DocumentMember, upload-input.ts).
 */
function withDocumentBytes(data: unknown, decoded: NonNullable<ParsedJsonBody["document"]>): unknown {
  const member = (data as { document?: { base64?: unknown } } | undefined)?.document;
  if (member?.base64 !== decoded.placeholder) return data;
  const { base64: _, ...rest } = member;
  return { ...(data as object), document: { ...rest, bytes: decoded.bytes } };
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
