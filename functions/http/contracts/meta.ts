import * as z from "zod";
import { defineRoute } from "#http/contract.ts";

/** healthRoute: GET /v1/health. */
export const healthRoute = defineRoute({
  name: "health",
  method: "GET",
  path: "/v1/health",
  auth: false,
  tag: "Service",
  summary: "Health check",
  description:
    "Answers 200 while the service can take requests, with the state of each part it checks (like Gotenberg's health: " +
    "on the local server LibreOffice, found and executable; nothing is started, so the probe stays fast). " +
    "When a required part is down it answers 503 `SERVICE_UNAVAILABLE`, one `details` entry per part saying what to fix.",
  body: { kind: "none" },
  success: {
    description: "The service is healthy.",
    contentType: "application/json",
    schema: z
      .object({
        status: z.literal("healthy"),
        timestamp: z.iso.datetime(),
        version: z.string(),
        checks: z
          .record(z.string(), z.object({ status: z.enum(["up", "down"]), message: z.string().optional() }))
          .meta({ description: "Each checked part by name (locally `libreoffice`); empty where nothing needs checking." }),
      })
      .meta({ id: "Health" }),
    example: { status: "healthy", timestamp: "2026-11-22T10:00:00.000Z", version: "0.1.0", checks: { libreoffice: { status: "up" } } },
  },
  errors: ["SERVICE_UNAVAILABLE"],
});

/** infoRoute: GET / (a short description of the service). */
export const infoRoute = defineRoute({
  name: "info",
  method: "GET",
  path: "/",
  auth: false,
  tag: "Service",
  summary: "Service information",
  description: "Names the service and links the API reference.",
  body: { kind: "none" },
  success: {
    description: "Service name, version and links.",
    contentType: "application/json",
    schema: z.object({ name: z.string(), version: z.string(), docs: z.string(), openapi: z.string(), health: z.string() }).meta({ id: "Info" }),
  },
  errors: [],
});

/** openapiRoute: GET /openapi.json. */
export const openapiRoute = defineRoute({
  name: "openapi",
  method: "GET",
  path: "/openapi.json",
  auth: false,
  tag: "Service",
  summary: "OpenAPI document",
  description: "The OpenAPI 3.1 document of this API, generated from the same schemas that validate requests.",
  body: { kind: "none" },
  success: { description: "The OpenAPI 3.1 document.", contentType: "application/json" },
  errors: [],
});

/** docsRoute: GET /docs (the human API reference). */
export const docsRoute = defineRoute({
  name: "docs",
  method: "GET",
  path: "/docs",
  auth: false,
  tag: "Service",
  summary: "API reference page",
  description: "An API reference built from /openapi.json, with request examples and a try-it console. Works offline.",
  body: { kind: "none" },
  success: { description: "An HTML page.", contentType: "text/html" },
  contentSecurityPolicy: "handler",
  errors: [],
});
