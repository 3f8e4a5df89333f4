import type { APIGatewayTokenAuthorizerEvent } from "aws-lambda";

/** handler denies every request until the API-key issue lands. */
export const handler = async (event: APIGatewayTokenAuthorizerEvent) => ({
  principalId: "anonymous",
  policyDocument: {
    Version: "2012-10-17",
    Statement: [{ Action: "execute-api:Invoke", Effect: "Deny", Resource: event.methodArn }],
  },
  context: { message: "API keys are not available in this build yet." },
});
