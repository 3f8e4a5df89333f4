import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { APIGatewayProxyEvent, Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HTTP_INTEGRATION_CONTENT_TYPE, STREAMING_DELIMITER, isStreamingHandler, type StreamingHandler } from "#http/streaming.ts";
import { CollectingStream } from "#http/buffered-invoke.ts";
import { makeAnnotateHandler } from "#functions/annotate.ts";
import { makeConvertHandler } from "#functions/convert.ts";
import { makeSignHandler } from "#functions/sign.ts";
import { testContainer } from "#test/helpers/container.ts";
import { expectSignedPdf } from "#test/helpers/signature-checks.ts";
import { converter } from "#wiring/conversion.ts";

// Event-level test of the streamed answers: the handler Lambda runs for sign, annotate
// and convert, fed an API Gateway event, writes what API Gateway's STREAM transfer mode reads:
// the metadata JSON, 8 NUL bytes, then the raw payload.
const eventsDir = new URL("../../events/", import.meta.url).pathname;
const dataDir = mkdtempSync(join(tmpdir(), "signet-streaming-"));
const readEvent = (name: string) => JSON.parse(readFileSync(join(eventsDir, `${name}.json`), "utf8")) as APIGatewayProxyEvent;
const context = { functionName: "signet-test", awsRequestId: "streaming-test", getRemainingTimeInMillis: () => 60_000 } as unknown as Context;
type Handler = StreamingHandler<APIGatewayProxyEvent, Context>;
let sign: Handler;
let convert: Handler;
let annotate: unknown;
let closeConverter: () => Promise<void>;

beforeAll(() => {
  const container = testContainer({ SIGNET_DATA_DIR: dataDir, SIGNET_CONVERSION_MODE: "oneshot" });
  sign = makeSignHandler(container) as unknown as Handler;
  convert = makeConvertHandler(container) as unknown as Handler;
  annotate = makeAnnotateHandler(container);
  closeConverter = () => converter(container).close();
});

afterAll(async () => {
  await closeConverter?.();
  rmSync(dataDir, { recursive: true, force: true });
});

async function run(handler: Handler, event: APIGatewayProxyEvent) {
  const stream = new CollectingStream();
  await handler(event, stream, context);
  const bytes = stream.bytes;
  const at = bytes.indexOf(STREAMING_DELIMITER);
  return { stream, bytes, at, metadata: JSON.parse(bytes.subarray(0, at).toString("utf8")) as Record<string, any>, payload: bytes.subarray(at + 8) };
}

describe("streamed answers (API Gateway ResponseTransferMode.STREAM)", () => {
  it("marks sign, annotate and convert as streaming handlers", () => {
    expect([sign, annotate, convert].map(isStreamingHandler)).toEqual([true, true, true]);
  });

  it("sign writes metadata JSON, 8 NUL bytes, then the JSON answer", async () => {
    const event = readEvent("sign");
    const { stream, bytes, at, metadata, payload } = await run(sign, event);
    expect(stream.contentType).toBe(HTTP_INTEGRATION_CONTENT_TYPE);
    expect(bytes.subarray(0, 14).toString()).toBe('{"statusCode":');
    expect(at).toBeGreaterThan(0);
    expect([...bytes.subarray(at, at + 8)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(metadata.statusCode).toBe(200);
    expect(metadata.headers).toMatchObject({ "Content-Type": "application/json; charset=utf-8", "X-Request-Id": event.requestContext.requestId });
    // The metadata carries no body and no base64 flag: the payload follows the delimiter as is.
    expect(metadata).not.toHaveProperty("body");
    expect(metadata).not.toHaveProperty("isBase64Encoded");
    expect(metadata.headers["Content-Length"]).toBe(String(payload.length));
    const answer = JSON.parse(payload.toString("utf8")) as { document: { base64: string } };
    const input = JSON.parse(Buffer.from(event.body!, "base64").toString("utf8")) as { document: { base64: string } };
    await expectSignedPdf(Buffer.from(answer.document.base64, "base64"), { input: Buffer.from(input.document.base64, "base64") });
  }, 60_000);

  it("an error streams in the same format, with the error layout as payload", async () => {
    const event = { ...readEvent("sign"), body: Buffer.from(JSON.stringify({ document: {} })).toString("base64") };
    const { metadata, payload } = await run(sign, event);
    expect(metadata.statusCode).toBe(400);
    expect(metadata.headers["Content-Length"]).toBe(String(payload.length));
    expect(JSON.parse(payload.toString("utf8"))).toMatchObject({ code: "VALIDATION_ERROR", requestId: event.requestContext.requestId });
  });

  it("convert streams the PDF as raw bytes (no base64)", async () => {
    const { metadata, payload } = await run(convert, readEvent("convert"));
    expect(metadata.statusCode).toBe(200);
    expect(metadata.headers["Content-Type"]).toBe("application/pdf");
    expect(metadata.headers["Content-Disposition"]).toMatch(/^attachment; filename=".*\.pdf"/);
    expect(payload.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(metadata.headers["Content-Length"]).toBe(String(payload.length));
  }, 120_000);
});
