import { randomUUID } from "node:crypto";
import { request as httpRequest, type ServerResponse } from "node:http";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import type { HttpResponse } from "#http/responses.ts";
import { startFixtureServer } from "#test/helpers/http-fixture-server.ts";

/** Invoke is a Lambda proxy handler as the tests call it. */
export type Invoke = (event: APIGatewayProxyEvent, context: Context) => Promise<HttpResponse>;

/** lambdaContext is a minimal Lambda context for direct handler calls. */
export const lambdaContext = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: "signet-test",
  functionVersion: "$LATEST",
  invokedFunctionArn: "arn:aws:lambda:local:000000000000:function:signet-test",
  memoryLimitInMB: "1024",
  awsRequestId: "test",
  logGroupName: "/aws/lambda/signet-test",
  logStreamName: "test",
  getRemainingTimeInMillis: () => 60_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
} as Context;

/** getEvent builds the REST (payload v1) event of a GET request with a query. */
export function getEvent(path: string, query: Record<string, string>, sourceIp = "203.0.113.7"): APIGatewayProxyEvent {
  return {
    resource: path,
    path,
    httpMethod: "GET",
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: query,
    multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: randomUUID(), identity: { sourceIp } } as APIGatewayProxyEvent["requestContext"],
  };
}

/** CallResult is a handler's answer with the body parsed. */
export interface CallResult {
  status: number;
  headers: Record<string, string>;
  json: Record<string, unknown>;
}

/** call invokes a handler and parses its JSON answer. */
export async function call(handler: unknown, event: APIGatewayProxyEvent): Promise<CallResult> {
  const response = await (handler as Invoke)(event, lambdaContext);
  return {
    status: response.statusCode,
    headers: Object.fromEntries(Object.entries(response.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)])),
    json: JSON.parse(response.body) as Record<string, unknown>,
  };
}

/** uniqueEmail is an address no other test uses. */
export function uniqueEmail(tag: string): string {
  return `${tag}-${randomUUID().slice(0, 8)}@example.com`;
}

/** StoredMail is one message in the local SES store. */
export interface StoredMail {
  destination: { to: string[] };
  subject: string;
  body: { text?: string; html?: string };
  at: number;
}

/** mailsTo reads the local SES store's messages to one address, oldest first. */
export async function mailsTo(sesEndpoint: string, to: string): Promise<StoredMail[]> {
  const response = await fetch(`${sesEndpoint}/store`);
  const { emails } = (await response.json()) as { emails: StoredMail[] };
  return emails.filter((mail) => mail.destination.to.includes(to));
}

/** latestCode reads the newest verification code sent to an address from the SES store. */
export async function latestCode(sesEndpoint: string, to: string): Promise<string> {
  const codes = (await mailsTo(sesEndpoint, to)).filter((mail) => mail.subject === "Your Signet verification code");
  const match = /code is: (\d{6})/.exec(codes.at(-1)?.body.text ?? "");
  if (!match) throw new Error(`no code mail to ${to} in the SES store`);
  return match[1]!;
}

/** OutputCapture records everything written to stdout and stderr while it is on. */
export interface OutputCapture {
  text(): string;
  stop(): void;
}

/**
 * captureOutput records what is written to stdout and stderr (the logger writes there) instead of
 * printing it, until stopped: the tests that check the log run at DEBUG, and their lines (expected
 * errors among them) stay out of the test output.
 */
export function captureOutput(): OutputCapture {
  let captured = "";
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((stream) => stream.write.bind(stream));
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      captured += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      const done = rest.find((arg) => typeof arg === "function") as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof stream.write;
  }
  return {
    text: () => captured,
    stop: () => {
      for (const [i, stream] of streams.entries()) stream.write = originals[i] as typeof stream.write;
    },
  };
}

/** closedPort is a loopback port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = await startFixtureServer(() => undefined);
  await server.close();
  return server.port;
}

/** CountingServer is a loopback HTTP stand-in that counts the requests it got. */
export interface CountingServer {
  endpoint: string;
  requests: () => number;
  close(): Promise<void>;
}

async function startCountingServer(answer: (res: ServerResponse) => void): Promise<CountingServer> {
  let count = 0;
  const server = await startFixtureServer((req, res) => {
    count++;
    req.resume();
    answer(res);
  });
  return { endpoint: server.url(""), requests: () => count, close: () => server.close() };
}

/** startRefusingSes serves an SES v2 endpoint that refuses every message, as SES does for an unverified address. */
export function startRefusingSes(): Promise<CountingServer> {
  return startCountingServer((res) => {
    res.writeHead(400, { "content-type": "application/json", "x-amzn-errortype": "MessageRejected" });
    res.end(JSON.stringify({ message: "Email address is not verified. The following identities failed the check in region US-EAST-1: x" }));
  });
}

/** startSilentServer accepts requests and never answers them, like a service that hangs; it counts them. */
export function startSilentServer(): Promise<CountingServer> {
  return startCountingServer(() => undefined);
}

/** FaultProxy passes DynamoDB calls through to a stand-in, dropping the ones a rule picks while armed. */
export interface FaultProxy {
  endpoint: string;
  /** arm starts dropping calls for which `drop(operation, body)` is true; disarm passes everything again. */
  arm(drop: (operation: string, body: string) => boolean): void;
  disarm(): void;
  /** dropped counts the calls dropped so far. */
  dropped: () => number;
  close(): Promise<void>;
}

/**
 * startDynamoFaultProxy sits between an adapter and the DynamoDB stand-in and cuts the connection
 * of chosen calls before they arrive, as a crash of the function at that point would: the write
 * never happens, the caller sees a network error.
 */
export async function startDynamoFaultProxy(target: string): Promise<FaultProxy> {
  let drop: ((operation: string, body: string) => boolean) | undefined;
  let dropped = 0;
  const server = await startFixtureServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const operation =
        String(req.headers["x-amz-target"] ?? "")
          .split(".")
          .pop() ?? "";
      if (drop?.(operation, body.toString("utf8"))) {
        dropped++;
        res.socket?.destroy();
        return;
      }
      const url = new URL(target);
      const forward = httpRequest({ hostname: url.hostname, port: url.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      });
      forward.on("error", () => res.socket?.destroy());
      forward.end(body);
    });
  });
  return {
    endpoint: server.url(""),
    arm: (rule) => (drop = rule),
    disarm: () => (drop = undefined),
    dropped: () => dropped,
    close: () => server.close(),
  };
}
