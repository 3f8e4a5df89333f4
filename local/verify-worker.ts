/**
 * The verify thread: runs the verify Lambda handler (functions/verify.ts, the same one the Lambda
 * exports) beside the server's event loop, so a verification that parses a hostile PDF for
 * seconds never delays other requests (GET /v1/health keeps answering). Started on the first
 * verify request by local/verify-thread.ts; answers each { id, event } with { id, response }.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import type { Config } from "#config";
import { makeVerifyHandler } from "#functions/verify.ts";
import { createContainer } from "#wiring/container.ts";
import { attachRawBody } from "#http/raw-body.ts";

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

/** withBody gives the event its body back as local/api-gateway-event.ts does: bytes attached, base64 text on demand. */
function withBody(event: APIGatewayProxyEvent, body: Uint8Array | undefined): APIGatewayProxyEvent {
  const bytes = body ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : Buffer.alloc(0);
  let encoded: string | null | undefined;
  Object.defineProperty(event, "body", {
    enumerable: true,
    configurable: true,
    get: () => (encoded ??= bytes.length > 0 ? bytes.toString("base64") : null),
    set: (value: string | null) => {
      encoded = value;
    },
  });
  if (bytes.length > 0) attachRawBody(event, bytes);
  return event;
}

// The server's configuration, cloned into this thread: the handler is made on a container of its own.
const handler = makeVerifyHandler(createContainer((workerData as { config: Config }).config));

parentPort!.on("message", (message: { id: number; event: APIGatewayProxyEvent; body?: Uint8Array }) => {
  const { id } = message;
  const event = withBody(message.event, message.body);
  void (handler as unknown as (event: APIGatewayProxyEvent, context: Context) => Promise<unknown>)(event, lambdaContext(event.requestContext.requestId)).then(
    (response) => parentPort!.postMessage({ id, response }),
    (error: unknown) => parentPort!.postMessage({ id, error: error instanceof Error ? error.message : String(error) }),
  );
});
parentPort!.postMessage("ready");
