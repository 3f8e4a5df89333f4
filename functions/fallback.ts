import * as z from "zod";
import { SignetError } from "#domain/shared/errors.ts";
import { answersHead, defineRoute, matchPath } from "#http/contract.ts";
import { errorResponse } from "#http/error-response.ts";
import { routes } from "#http/routes.ts";
import { type Container, processContainer } from "#wiring/container.ts";
import { httpHandler } from "#wiring/http.ts";

const fallbackRoute = defineRoute({
  name: "fallback",
  method: "GET",
  path: "/{proxy+}",
  auth: false,
  tag: "Service",
  summary: "Unknown routes",
  description: "Answers 404 for unknown paths and 405 for known paths with the wrong method.",
  // Any query is fine here: the route itself is what is wrong.
  query: z.record(z.string(), z.string()),
  body: { kind: "none" },
  success: { description: "never", contentType: "application/json" },
  errors: ["NOT_FOUND", "METHOD_NOT_ALLOWED"],
});

/** makeFallbackHandler builds the answer to every request no route claims on a container: 404 for an unknown path, 405 for a wrong method. */
export function makeFallbackHandler(container: Container) {
  return httpHandler(container, fallbackRoute, async (request) => {
    const path = request.event.path;
    // A literal path shadows parameter routes (as on API Gateway): /v1/keys/revoke is not /v1/keys/{id}.
    const literal = routes.filter((route) => route.path === path);
    const matching = literal.length > 0 ? literal : routes.filter((route) => route.path.includes("{") && matchPath(route.path, path));
    const allowed = matching.map((route) => route.method);
    if (allowed.length === 0) {
      throw new SignetError("NOT_FOUND", `There is no route ${path}. See /openapi.json for the API.`);
    }
    return errorResponse("METHOD_NOT_ALLOWED", `${path} does not answer ${request.event.httpMethod}; use ${allowed.join(" or ")}.`, request.requestId, {
      // HEAD only where it is GET without the body: never on a GET that changes state (contract.ts).
      headers: { Allow: [...allowed, ...(matching.some(answersHead) ? ["HEAD"] : []), "OPTIONS"].join(", ") },
    });
  });
}

/** handler answers unknown routes with this process's container. */
export const handler = makeFallbackHandler(processContainer());
