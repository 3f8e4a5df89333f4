import { openapiRoute } from "#http/contracts/meta.ts";
import { openApiDocument } from "#http/openapi.ts";
import { httpHandler } from "#wiring/http.ts";
import { text } from "#http/responses.ts";

// Generated and serialised once per container: the schemas do not change at run time.
const body = JSON.stringify(openApiDocument());

/** handler answers GET /openapi.json. */
export const handler = httpHandler(openapiRoute, async () => text(200, body, "application/json; charset=utf-8", { "Cache-Control": "public, max-age=300" }));
