import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { errorCodesOf, openApiDocument } from "#http/openapi.ts";
import { routes } from "#http/routes.ts";

describe("the OpenAPI document", () => {
  const document = openApiDocument("0.0.0-test");

  it("is valid OpenAPI 3.1", async () => {
    const result = await new Validator().validate(structuredClone(document) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(document.openapi).toBe("3.1.0");
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))("lists %s with its errors", (_name, route) => {
    const operation = (document.paths![route.path] as Record<string, { responses: Record<string, unknown>; security?: unknown[] }>)[route.method.toLowerCase()];
    expect(operation).toBeDefined();
    expect(operation!.responses["200"]).toBeDefined();
    for (const code of errorCodesOf(route)) {
      const listed = Object.values(operation!.responses).some((response) => JSON.stringify(response).includes(`"${code}"`));
      expect(listed, `${code} documented`).toBe(true);
    }
    expect(operation!.security).toEqual(route.auth ? [{ bearerAuth: [] }] : []);
  });
});
