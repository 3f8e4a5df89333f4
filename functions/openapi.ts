import { openapiRoute } from "#http/contracts/meta.ts";
import { openApiDocument } from "#http/openapi.ts";
import { text } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";

/** makeOpenapiHandler builds GET /openapi.json on a container. */
export function makeOpenapiHandler(container: Container) {
  // Generated and serialised once per container: the schemas do not change at run time.
  const body = JSON.stringify(openApiDocument(container.config.version));
  return httpHandler(container, openapiRoute, async () => text(200, body, "application/json; charset=utf-8", { "Cache-Control": "public, max-age=300" }));
}

/** handler answers GET /openapi.json with this process's container. */
export const handler = makeOpenapiHandler(processContainer());
