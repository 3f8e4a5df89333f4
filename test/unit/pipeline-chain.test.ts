import { describe, expect, it } from "vitest";
import { signRoute } from "#http/contracts/sign.ts";
import { infoRoute } from "#http/contracts/meta.ts";
import { middlewaresOf, type HttpSettings } from "#http/pipeline.ts";

// The chain is a list of named middlewares (functions/http/middlewares/); one row = a route and a
// runtime, and the names in the order Middy runs their `before` steps. What each does is tested
// through the handlers (test/integration/pipeline.test.ts, test/hostile/http-edges.test.ts).
const settings = (runtime: HttpSettings["runtime"]): HttpSettings => ({ runtime, corsOrigin: "*", maxRequestBytes: 1, maxDocumentBytes: 1, maxJsonDepth: 1 });
const response = ["lambdaContext", "cors", "securityHeaders", "requestFacts", "errorMapping", "headerNormalizer"];
const request = ["authContext", "bodyDecoding", "requestSizeLimit", "queryValidation", "pathValidation", "jsonBodyValidation"];

describe("the middleware chain", () => {
  it.each([
    ["a buffered public route on AWS", infoRoute, "aws", [...response, "lambdaResponseLimit", ...request]],
    ["a buffered public route locally", infoRoute, "local", [...response, ...request]],
    ["a streamed authorised route on AWS", signRoute, "aws", ["streamResponse", ...response, "authContext", "keyRateLimit", ...request.slice(1)]],
  ] as const)("%s", (_name, route, runtime, names) => {
    const chain = middlewaresOf(route, { settings: settings(runtime), keyRate: async () => undefined });
    expect(chain.map((middleware) => middleware.name)).toEqual(names);
  });
});
