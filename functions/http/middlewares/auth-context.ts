import type { APIGatewayProxyEvent } from "aws-lambda";
import type { Principal } from "#http/caller.ts";
import { partsOf, type PipelineMiddleware } from "#http/middlewares/chain.ts";

function principalOf(event: APIGatewayProxyEvent): Principal | undefined {
  const context = event.requestContext?.authorizer as Record<string, unknown> | null | undefined;
  if (!context || typeof context.keyId !== "string") return undefined;
  return { keyId: context.keyId, email: typeof context.email === "string" ? context.email : "" };
}

/** authContext reads the caller the authorizer identified (its context: keyId, email), if any. */
export function authContext(): PipelineMiddleware {
  return {
    name: "authContext",
    before: (request) => {
      const principal = principalOf(request.event);
      if (principal) partsOf(request.event).principal = principal;
    },
  };
}
