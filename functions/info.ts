import { config } from "#config";
import { infoRoute } from "#http/contracts/meta.ts";
import { httpHandler } from "#wiring/http.ts";
import { json } from "#http/responses.ts";

/** handler answers GET / with what this service is and where its reference lives. */
export const handler = httpHandler(infoRoute, async () =>
  json(200, {
    name: "Signet",
    version: config.version,
    docs: "/docs",
    openapi: "/openapi.json",
    health: "/v1/health",
  }),
);
