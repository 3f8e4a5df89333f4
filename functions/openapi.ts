import { openapiRoute } from "#http/contracts/meta.ts";
import { openApiDocument } from "#http/openapi.ts";
import { httpHandler } from "#http/pipeline.ts";
import { json } from "#http/responses.ts";

// Generated once per container: the schemas do not change at run time.
const body = openApiDocument();

/** handler answers GET /openapi.json. */
export const handler = httpHandler(openapiRoute, async () => json(200, body, { "Cache-Control": "public, max-age=300" }));
