// The chain's log lines, as Powertools' injectLambdaContext writes them, at the level the
// container's configuration sets (SIGNET_LOG_LEVEL=INFO; the suite's default is SILENT).
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { logger } from "#adapters/powertools-logger.ts";
import { makeHealthHandler } from "#functions/health.ts";
import { testContainer } from "#test/helpers/container.ts";
import { captureOutput } from "#test/helpers/keys-harness.ts";

const event = (headers: Record<string, string>): APIGatewayProxyEvent =>
  ({
    resource: "/v1/health",
    path: "/v1/health",
    httpMethod: "GET",
    headers,
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: "gateway-request-id", identity: { sourceIp: "203.0.113.9" } },
  }) as unknown as APIGatewayProxyEvent;

const lambda = (id: string) =>
  ({
    functionName: "signet-health",
    functionVersion: "$LATEST",
    memoryLimitInMB: "512",
    awsRequestId: id,
    invokedFunctionArn: "arn:aws:lambda:eu-west-1:123456789012:function:signet-health",
  }) as Context;

describe("log lines of the middy chain", () => {
  it("carry the Lambda context and the request's correlation id, and nothing of it stays for the next line", async () => {
    const handler = makeHealthHandler(testContainer({ SIGNET_LOG_LEVEL: "INFO" }));
    const output = captureOutput();
    try {
      await handler(event({ "X-Request-Id": "client-id-1" }), lambda("invoke-1"));
      logger.info("between invocations");
      await handler(event({}), lambda("invoke-2"));
    } finally {
      output.stop();
    }
    const lines = output
      .text()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = lines.filter((line) => line.message === "request");
    expect(requests).toEqual([
      expect.objectContaining({
        correlation_id: "client-id-1",
        route: "GET /v1/health",
        status: 200,
        function_name: "signet-health",
        function_request_id: "invoke-1",
        cold_start: expect.any(Boolean),
      }),
      // Without X-Request-Id the gateway's id is the request id.
      expect.objectContaining({ correlation_id: "gateway-request-id", function_request_id: "invoke-2" }),
    ]);
    // resetKeys: the request's keys are gone once the invocation ends.
    const between = lines.find((line) => line.message === "between invocations");
    expect(between).toBeDefined();
    expect(between).not.toHaveProperty("correlation_id");
    expect(between).not.toHaveProperty("route");
  });
});
