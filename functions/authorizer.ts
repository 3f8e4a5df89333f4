import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from "aws-lambda";
import { logger } from "#adapters/powertools-logger.ts";
import { authorize, type KeyServiceDeps } from "#domain/keys/key-service.ts";
import { processContainer } from "#wiring/container.ts";
import { authorizerDeps } from "#wiring/keys.ts";

/** AuthorizerDeps is what the authorizer needs: the key store and a clock. */
export type AuthorizerDeps = Pick<KeyServiceDeps, "store" | "now" | "warn">;

// The answer is cached by the Authorization header and reused for every route, so the policy
// must cover the whole stage, not just the method that happened to be called first.
function stageWildcard(methodArn: string): string {
  const [apiArn, stage] = methodArn.split("/");
  return `${apiArn}/${stage}/*`;
}

/**
 * createAuthorizer builds the TOKEN authorizer: Allow with { keyId, email } as context, or Deny
 * with a message saying what is wrong with the key. A store failure is thrown, so the gateway
 * answers 503 rather than 401.
 */
export function createAuthorizer(deps: AuthorizerDeps) {
  return async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    let decision: Awaited<ReturnType<typeof authorize>>;
    try {
      decision = await authorize(deps, event.authorizationToken);
    } catch (error) {
      logger.error("API key check failed", { error: error as Error });
      throw error;
    }
    const policy = (effect: "Allow" | "Deny") => ({
      Version: "2012-10-17",
      Statement: [{ Action: "execute-api:Invoke", Effect: effect, Resource: stageWildcard(event.methodArn) }],
    });
    if (!decision.allow) return { principalId: "anonymous", policyDocument: policy("Deny"), context: { message: decision.message } };
    return { principalId: decision.keyId, policyDocument: policy("Allow"), context: { keyId: decision.keyId, email: decision.email } };
  };
}

/** handler is the API-key authorizer on this process's container (DynamoDB and the system clock). */
export const handler = createAuthorizer(authorizerDeps(processContainer()));
