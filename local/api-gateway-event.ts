import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { APIGatewayProxyEvent } from "aws-lambda";
import { attachRawBody } from "#http/raw-body.ts";

/**
 * toProxyEvent builds the API Gateway REST (payload v1) event the deployed stack delivers for a
 * request. The stack sets binaryMediaTypes to *&#47;*, so every body arrives base64-encoded: event.body
 * is that base64 text, computed only when read; the pipeline takes the bytes themselves (raw-body.ts).
 */
export function toProxyEvent(req: IncomingMessage, url: URL, body: Buffer, resourcePath: string): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
    (multiValueHeaders[name] ??= []).push(value);
  }
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = value; // API Gateway keeps the last value in queryStringParameters
    (multiQuery[name] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const requestId = randomUUID();
  const sourceIp = (req.socket.remoteAddress ?? "127.0.0.1").replace(/^::ffff:/, "");
  const event: APIGatewayProxyEvent = {
    resource: resourcePath,
    path: url.pathname,
    httpMethod: req.method ?? "GET",
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: null,
    stageVariables: null,
    body: null, // replaced by the lazy property below
    isBase64Encoded: body.length > 0,
    requestContext: {
      accountId: "000000000000",
      apiId: "local",
      authorizer: null,
      protocol: `HTTP/${req.httpVersion}`,
      httpMethod: req.method ?? "GET",
      path: `/local${url.pathname}`,
      stage: "local",
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: "local",
      resourcePath,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent: req.headers["user-agent"] ?? null,
        userArn: null,
      },
    },
  };
  let encoded: string | null | undefined;
  Object.defineProperty(event, "body", {
    enumerable: true,
    configurable: true,
    get: () => (encoded ??= body.length > 0 ? body.toString("base64") : null),
    set: (value: string | null) => {
      encoded = value;
    },
  });
  if (body.length > 0) attachRawBody(event, body);
  return event;
}
