import { Readable, type Writable } from "node:stream";
import { SignetError } from "#domain/shared/errors.ts";
import { formatBytes } from "#domain/shared/sizes.ts";
import { streamWriteMs } from "#functions/timeouts.ts";
import { type BodyPart, bodyChunks, bodyPartsOf, type HttpResponse } from "#http/responses.ts";

/**
 * Lambda response streaming for API Gateway REST (ResponseTransferMode.STREAM).
 *
 * Wire format API Gateway expects from a streaming Lambda proxy integration: the response's
 * metadata as JSON ({ statusCode, headers, multiValueHeaders, cookies }), then 8 NUL bytes, then
 * the raw payload (bytes as they are: no base64, no binaryMediaTypes involved). The Node.js
 * runtime's `awslambda.HttpResponseStream.from(stream, metadata)` writes the first two parts;
 * Middy's streamifyResponse execution mode calls it with the response minus its body, then
 * writes the body. The answer is not limited to Lambda's 6 MB (streamed answers may reach
 * 200 MB) nor API Gateway's 10 MB (above 10 MB the gateway sends at 2 MB/s), and the gateway
 * waits up to 15 minutes instead of 29 s.
 */

/** STREAMING_DELIMITER separates the metadata JSON from the payload. */
export const STREAMING_DELIMITER = Buffer.alloc(8);

/** The marker the Node.js runtime puts on a streamified handler (and reads to invoke it so). */
const HANDLER_STREAMING = Symbol.for("aws.lambda.runtime.handler.streaming");
const STREAM_RESPONSE = "response";

/** The content type the runtime gives the stream once HttpResponseStream.from wrote metadata. */
export const HTTP_INTEGRATION_CONTENT_TYPE = "application/vnd.awslambda.http-integration-response";

/** ResponseStream is the writable the runtime hands a streaming handler. */
export type ResponseStream = Writable & { setContentType?(type: string): void };

/** StreamingHandler is a streamified Lambda handler: (event, responseStream, context). */
export type StreamingHandler<E = unknown, C = unknown> = ((event: E, responseStream: ResponseStream, context: C) => Promise<void>) & {
  [HANDLER_STREAMING]?: string;
};

interface LambdaStreamingGlobal {
  streamifyResponse<H>(handler: H): H;
  HttpResponseStream: { from(stream: ResponseStream, metadata: Record<string, unknown>): ResponseStream };
}

/**
 * localStreamingRuntime does outside Lambda what the Node.js runtime's `awslambda` global does:
 * streamifyResponse marks the handler, HttpResponseStream.from writes the metadata JSON and the
 * 8-byte delimiter to the stream it is given. The local server hands handlers a stream that
 * decodes this format onto the HTTP response (local/response-stream.ts), as API Gateway does.
 */
const localStreamingRuntime: LambdaStreamingGlobal = {
  streamifyResponse<H>(handler: H): H {
    (handler as Record<symbol, string>)[HANDLER_STREAMING] = STREAM_RESPONSE;
    return handler;
  },
  HttpResponseStream: {
    from(stream, metadata) {
      stream.setContentType?.(HTTP_INTEGRATION_CONTENT_TYPE);
      stream.write(JSON.stringify(metadata));
      stream.write(STREAMING_DELIMITER);
      return stream;
    },
  },
};

/**
 * ensureStreamingRuntime makes `awslambda.streamifyResponse` and `HttpResponseStream` available: on
 * Lambda the runtime defines them before any module loads; anywhere else (local server, tests) the
 * local runtime above is installed once.
 */
export function ensureStreamingRuntime(): void {
  const scope = globalThis as { awslambda?: Partial<LambdaStreamingGlobal> };
  // Other libraries (the SDK's invoke store) create an `awslambda` object of their own: complete it, never replace it.
  const runtime = (scope.awslambda ??= {});
  if (typeof runtime.streamifyResponse !== "function") runtime.streamifyResponse = localStreamingRuntime.streamifyResponse;
  runtime.HttpResponseStream ??= localStreamingRuntime.HttpResponseStream;
}

/** isStreamingHandler tells a streamified handler from a buffered one. */
export function isStreamingHandler(handler: unknown): handler is StreamingHandler {
  return typeof handler === "function" && (handler as StreamingHandler)[HANDLER_STREAMING] === STREAM_RESPONSE;
}

/**
 * toStreamBody prepares a buffered response for the stream: a json() answer with base64 members is
 * streamed in pieces, a base64 body (binary answers) as its bytes, since streamed payloads are
 * raw; the metadata loses isBase64Encoded. The whole answer is known before its first byte, so
 * the metadata carries its Content-Length: a client (or proxy) can tell an answer cut short
 * (Lambda ending mid-stream) from a complete one, although the status line already said 200.
 * With `remainingMs` (on AWS, the invocation's time left) an answer that could not be written
 * completely in that time is refused before its first byte (checkTimeToStream).
 */
export function toStreamBody(response: HttpResponse, options: { remainingMs?: number } = {}): HttpResponse {
  const parts = bodyPartsOf(response);
  const { statusCode, headers, multiValueHeaders } = response;
  const withLength = (bytes: number) => {
    if (options.remainingMs !== undefined) checkTimeToStream(bytes, options.remainingMs);
    return { ...(headers ?? {}), "Content-Length": String(bytes) };
  };
  if (parts) {
    // A json() answer with base64 members: streamed piece by piece, never joined into one string
    // (reading response.body would join it).
    return {
      statusCode,
      headers: withLength(partsByteLength(parts)),
      ...(multiValueHeaders ? { multiValueHeaders } : {}),
      body: Readable.from(bodyChunks(parts)) as unknown as string,
    };
  }
  if (!response.isBase64Encoded) return { ...response, headers: withLength(Buffer.byteLength(response.body ?? "", "utf8")) };
  const { isBase64Encoded: _, body, ...rest } = response;
  const bytes = Buffer.from(body, "base64");
  return { ...rest, headers: withLength(bytes.length), body: Readable.from([bytes]) as unknown as string };
}

/** partsByteLength is the UTF-8 length of a parts answer, computed without joining it (base64 is ASCII). */
function partsByteLength(parts: BodyPart[]): number {
  return parts.reduce((sum, part) => sum + (typeof part === "string" ? Buffer.byteLength(part, "utf8") : part.length), 0);
}

/**
 * checkTimeToStream refuses, before the first byte, an answer of `bytes` that cannot be written
 * in `remainingMs` at Lambda's streaming rate (streamWriteMs, functions/timeouts.ts): a 504 the
 * client can act on instead of a 200 whose body stops when the function's time runs out.
 */
export function checkTimeToStream(bytes: number, remainingMs: number): void {
  const needMs = streamWriteMs(bytes);
  if (needMs <= remainingMs) return;
  throw new SignetError(
    "CONVERSION_TIMEOUT",
    `The result is ready but is ${formatBytes(bytes)}, which takes about ${Math.ceil(needMs / 1000)} s to send, and only ${Math.floor(remainingMs / 1000)} s ` +
      "of this request's time are left; send it again (a warm container converts faster) or split the document.",
  );
}

/** StreamedResponse is a streamed answer split back into its parts. */
export interface StreamedResponse {
  statusCode: number;
  headers: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  body: Buffer;
}

/** decodeStreamedResponse splits the wire format (metadata JSON, 8 NULs, payload) into its parts. */
export function decodeStreamedResponse(bytes: Buffer): StreamedResponse {
  const at = bytes.indexOf(STREAMING_DELIMITER);
  if (at < 0) throw new Error("streamed response has no metadata delimiter (8 NUL bytes)");
  const metadata = JSON.parse(bytes.subarray(0, at).toString("utf8")) as Omit<StreamedResponse, "body">;
  return { ...metadata, headers: metadata.headers ?? {}, body: bytes.subarray(at + STREAMING_DELIMITER.length) };
}
