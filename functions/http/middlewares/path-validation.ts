import type * as z from "zod";
import { SignetError } from "#domain/shared/errors.ts";
import { partsOf, type PipelineMiddleware } from "#http/middlewares/chain.ts";
import { zodDetails } from "#http/zod-details.ts";

/** pathValidation checks the path parameters (`{id}`) against the route's schema and keeps them; none for routes without any. */
export function pathValidation(schema: z.ZodObject | undefined): PipelineMiddleware {
  return {
    name: "pathValidation",
    before: (request) => {
      if (!schema) {
        partsOf(request.event).params = {};
        return;
      }
      const result = schema.safeParse(request.event.pathParameters ?? {});
      if (!result.success) {
        throw new SignetError("VALIDATION_ERROR", "A path parameter is invalid; see details.", { details: zodDetails(result.error, "path") });
      }
      partsOf(request.event).params = result.data as Record<string, string>;
    },
  };
}
