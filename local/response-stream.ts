import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { STREAMING_DELIMITER, decodeStreamedResponse } from "#http/streaming.ts";

/**
 * GatewayStream plays API Gateway's side of a streaming Lambda integration: it reads the metadata
 * JSON up to the 8 NUL bytes, writes status and headers onto the HTTP response, then passes the
 * payload through as it arrives (with back-pressure).
 */
export class GatewayStream extends Writable {
  private head: Buffer[] = [];
  private headSize = 0;
  private started = false;

  constructor(private readonly res: ServerResponse) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.started) {
      this.pass(chunk, callback);
      return;
    }
    this.head.push(chunk);
    this.headSize += chunk.length;
    const buffered = Buffer.concat(this.head, this.headSize);
    const at = buffered.indexOf(STREAMING_DELIMITER);
    if (at < 0) {
      callback();
      return;
    }
    const { statusCode, headers, multiValueHeaders } = decodeStreamedResponse(buffered.subarray(0, at + STREAMING_DELIMITER.length));
    const merged: Record<string, string> = { ...headers };
    for (const [name, values] of Object.entries(multiValueHeaders ?? {})) merged[name] = values.join(", ");
    this.res.writeHead(statusCode, merged);
    this.started = true;
    this.head = [];
    const rest = buffered.subarray(at + STREAMING_DELIMITER.length);
    if (rest.length === 0) {
      callback();
      return;
    }
    this.pass(rest, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.started) {
      callback(new Error("the streaming handler ended without metadata"));
      return;
    }
    this.res.end(() => callback());
  }

  private pass(chunk: Buffer, callback: (error?: Error | null) => void): void {
    if (this.res.write(chunk)) callback();
    else this.res.once("drain", () => callback());
  }
}
