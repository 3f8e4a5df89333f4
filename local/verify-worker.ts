/**
 * The verify thread: runs the verify Lambda handler (functions/verify.ts, the same one the Lambda
 * exports) beside the server's event loop, so a verification that parses a hostile PDF for
 * seconds never delays other requests (GET /v1/health keeps answering). Started on the first
 * verify request by local/verify-thread.ts; answers each { id, event } with { id, response }.
 */
import { parentPort } from "node:worker_threads";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { handler } from "#functions/verify.ts";

function lambdaContext(requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: "signet-verify",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:local:000000000000:function:signet-verify",
    memoryLimitInMB: "3008",
    awsRequestId: requestId,
    logGroupName: "/aws/lambda/signet-verify",
    logStreamName: "local",
    getRemainingTimeInMillis: () => 900_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

parentPort!.on("message", (message: { id: number; event: APIGatewayProxyEvent }) => {
  const { id, event } = message;
  void (handler as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>)(event, lambdaContext(event.requestContext.requestId)).then(
    (response) => parentPort!.postMessage({ id, response }),
    (error: unknown) => parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
  );
});
parentPort!.postMessage("ready");
