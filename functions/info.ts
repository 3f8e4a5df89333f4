import { infoRoute } from "#http/contracts/meta.ts";
import { json } from "#http/responses.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";

/** makeInfoHandler builds GET / on a container: what this service is and where its reference lives. */
export function makeInfoHandler(container: Container) {
  const body = { name: "Signet", version: container.config.version, docs: "/docs", openapi: "/openapi.json", health: "/v1/health" };
  return httpHandler(container, infoRoute, async () => json(200, body));
}

/** handler answers GET / with this process's container. */
export const handler = makeInfoHandler(processContainer());
