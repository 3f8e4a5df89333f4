import { Writable } from "node:stream";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import type { HttpResponse } from "#http/responses.ts";
import { decodeStreamedResponse, type StreamingHandler } from "#http/streaming.ts";

/** CollectingStream keeps everything a streaming handler writes (event-level tests, buffered calls). */
export class CollectingStream extends Writable {
  private readonly chunks: Buffer[] = [];
  contentType?: string;

  setContentType(type: string): void {
    this.contentType = type;
  }

  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    callback();
  }

  /** bytes is the raw wire output: metadata JSON, 8 NUL bytes, payload. */
  get bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

const TEXT = /^(application\/json|text\/)/i;

/**
 * invokeBuffered calls a streaming handler and reassembles a buffered proxy result from its wire
 * output (JSON and text as strings, anything else base64), for callers that want one object.
 */
export async function invokeBuffered(
  handler: StreamingHandler<APIGatewayProxyEvent, Context>,
  event: APIGatewayProxyEvent,
  context: Context,
): Promise<HttpResponse> {
  const stream = new CollectingStream();
  await handler(event, stream, context);
  const { statusCode, headers, body } = decodeStreamedResponse(stream.bytes);
  const text = TEXT.test(headers["Content-Type"] ?? headers["content-type"] ?? "");
  return text ? { statusCode, headers, body: body.toString("utf8") } : { statusCode, headers, body: body.toString("base64"), isBase64Encoded: true };
}
