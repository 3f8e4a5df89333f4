import type { APIGatewayProxyEvent } from "aws-lambda";
import type * as z from "zod";
import { SignetError } from "#domain/shared/errors.ts";
import { partsOf, type PipelineMiddleware } from "#http/middlewares/chain.ts";
import { zodDetails } from "#http/zod-details.ts";

/** refuseRepeated refuses a parameter given twice: API Gateway keeps only the last value in queryStringParameters. */
function refuseRepeated(event: APIGatewayProxyEvent): void {
  // ?to=xyz&to=docx would otherwise silently win last.
  const repeated = Object.entries(event.multiValueQueryStringParameters ?? {}).filter(([, values]) => (values?.length ?? 0) > 1);
  if (repeated.length > 0) {
    throw new SignetError("VALIDATION_ERROR", `Send each query parameter once; ${repeated.map(([name]) => `"${name}"`).join(", ")} appeared more than once.`, {
      details: repeated.map(([name, values]) => ({ field: `query.${name}`, issue: `given ${values!.length} times; send it once` })),
    });
  }
}

function parseQuery(schema: z.ZodType | undefined, event: APIGatewayProxyEvent): unknown {
  refuseRepeated(event);
  const raw = event.queryStringParameters ?? {};
  if (!schema) {
    const names = Object.keys(raw);
    if (names.length > 0) {
      throw new SignetError("VALIDATION_ERROR", "This endpoint takes no query parameters.", {
        details: names.map((name) => ({ field: `query.${name}`, issue: "unknown parameter" })),
      });
    }
    return undefined;
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    // A parameter that is absent is "required", not zod's "expected string, received undefined".
    const missing = (issue: z.core.$ZodIssue) => issue.path.length === 1 && !Object.hasOwn(raw, String(issue.path[0]));
    throw new SignetError("VALIDATION_ERROR", "A query parameter is missing or invalid; see details.", {
      details: zodDetails(result.error, "query").map((detail, index) => (missing(result.error.issues[index]!) ? { ...detail, issue: "required" } : detail)),
    });
  }
  return result.data;
}

/** queryValidation checks the query against the route's schema (none: no parameter at all) and keeps the parsed value. */
export function queryValidation(schema: z.ZodType | undefined): PipelineMiddleware {
  return {
    name: "queryValidation",
    before: (request) => {
      partsOf(request.event).query = parseQuery(schema, request.event);
    },
  };
}
