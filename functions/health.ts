import { config } from "#config";
import { healthRoute } from "#http/contracts/meta.ts";
import { httpHandler } from "#http/pipeline.ts";
import { json } from "#http/responses.ts";

/** handler answers GET /v1/health. */
export const handler = httpHandler(healthRoute, async () =>
  json(200, { status: "healthy", timestamp: new Date().toISOString(), version: config.version }, { "Cache-Control": "no-store" }),
);
