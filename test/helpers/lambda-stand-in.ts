// A stand-in for Lambda's Invoke API (RequestResponse): what the AWS SDK's LambdaClient sends to
// POST /2015-03-31/functions/{name}/invocations is answered by the handler of that name, in
// process, with the JSON round trip Lambda makes; it records which function got which payload.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** Invocation is one invoke as the stand-in received it. */
export interface Invocation {
  functionName: string;
  payload: unknown;
}

/** LambdaStandIn is a running stand-in: its endpoint (SIGNET_LAMBDA_ENDPOINT), what it was sent, and how to stop it. */
export interface LambdaStandIn {
  endpoint: string;
  invocations: Invocation[];
  close(): Promise<void>;
}

/** startLambdaStandIn answers invokes of the named functions by their handlers; any other name is Lambda's 404 ResourceNotFoundException. */
export async function startLambdaStandIn(functions: Record<string, (event: unknown) => Promise<unknown>>): Promise<LambdaStandIn> {
  const invocations: Invocation[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", async () => {
      const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(request.url ?? "");
      const functionName = match ? decodeURIComponent(match[1]!) : "";
      const handler = functions[functionName];
      if (request.method !== "POST" || !handler) {
        response.writeHead(404, { "content-type": "application/json", "x-amzn-errortype": "ResourceNotFoundException" });
        response.end(JSON.stringify({ Type: "User", message: `Function not found: ${functionName}` }));
        return;
      }
      const payload = JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
      invocations.push({ functionName, payload });
      const answer = JSON.stringify(await handler(payload));
      response.writeHead(200, { "content-type": "application/json", "x-amz-executed-version": "$LATEST" });
      response.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    invocations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
