import { describe, expect, it } from "vitest";
import {
  AFTER_CONVERSION_MS,
  LAMBDA_CONVERSION_TIMEOUT_MS,
  LARGEST_PLANNED_ANSWER_BYTES,
  OFFICE_FUNCTION_TIMEOUT_SECONDS,
  OFFICE_INIT_MS,
  OFFICE_INVOKE_TIMEOUT_MS,
  OFFICE_TRANSFER_MS,
  STREAM_MARGIN_MS,
  STREAMING_TIMEOUT_SECONDS,
  streamWriteMs,
} from "#functions/timeouts.ts";
import { json, base64Text } from "#http/responses.ts";
import { checkTimeToStream, toStreamBody } from "#http/streaming.ts";

// A streamed answer must never be cut short after its 200 status line. The
// arithmetic (answer size, Lambda's streaming rate, time left) lives in functions/timeouts.ts and
// is checked here, in one place.
const MiB = 1024 * 1024;

describe("streamWriteMs: 6 MB at full speed, then 2 MB/s, plus a margin", () => {
  it.each([
    [0, STREAM_MARGIN_MS],
    [6 * MiB, STREAM_MARGIN_MS],
    [8 * MiB, STREAM_MARGIN_MS + 1_000],
    [30 * MiB, STREAM_MARGIN_MS + 12_000],
    [200 * MiB, STREAM_MARGIN_MS + 97_000],
  ])("%i bytes take at most %i ms", (bytes, ms) => {
    expect(streamWriteMs(bytes)).toBe(ms);
  });
});

describe("the streaming functions' time budget", () => {
  it("stops LibreOffice early enough that the work after it and the largest planned answer still fit in the function's time-out", () => {
    // A 25 MB document as base64 in JSON: 35 MB, 15.7 s to write.
    expect(LARGEST_PLANNED_ANSWER_BYTES).toBeGreaterThan(((25 * MiB) / 3) * 4);
    expect(streamWriteMs(LARGEST_PLANNED_ANSWER_BYTES)).toBe(15_698);
    expect(LAMBDA_CONVERSION_TIMEOUT_MS).toBe(76_000);
    expect(LAMBDA_CONVERSION_TIMEOUT_MS + AFTER_CONVERSION_MS + streamWriteMs(LARGEST_PLANNED_ANSWER_BYTES)).toBeLessThanOrEqual(
      STREAMING_TIMEOUT_SECONDS * 1000,
    );
  });

  it("keeps the office function inside its caller: a cold start, four transfers, the conversion, the answer", () => {
    expect(OFFICE_FUNCTION_TIMEOUT_SECONDS).toBe(83);
    // The office function: its GET, LibreOffice, its PUT, inside its own time-out.
    expect(OFFICE_TRANSFER_MS + LAMBDA_CONVERSION_TIMEOUT_MS + OFFICE_TRANSFER_MS).toBeLessThan(OFFICE_FUNCTION_TIMEOUT_SECONDS * 1000);
    // The caller waits through a cold start and the whole time-out, then still reads the output,
    // finishes its work and writes the largest planned answer within its 120 s.
    expect(OFFICE_INVOKE_TIMEOUT_MS).toBe(OFFICE_INIT_MS + OFFICE_FUNCTION_TIMEOUT_SECONDS * 1000);
    expect(
      OFFICE_TRANSFER_MS + OFFICE_INVOKE_TIMEOUT_MS + OFFICE_TRANSFER_MS + AFTER_CONVERSION_MS + streamWriteMs(LARGEST_PLANNED_ANSWER_BYTES),
    ).toBeLessThanOrEqual(STREAMING_TIMEOUT_SECONDS * 1000);
  });

  // One row: answer size, time left when it is ready, whether it may start.
  it.each([
    [1 * MiB, 3_000, true],
    [1 * MiB, 1_000, false],
    [35 * MiB, 20_000, true],
    [35 * MiB, 15_000, false],
    // The case: a 30 MB answer ready at 114 s of 120 (6 s left) needs 14 s: refused, not cut.
    [30 * MiB, 6_000, false],
  ])("an answer of %i bytes with %i ms left may start: %s", (bytes, remainingMs, starts) => {
    if (starts) expect(() => checkTimeToStream(bytes, remainingMs)).not.toThrow();
    else expect(() => checkTimeToStream(bytes, remainingMs)).toThrow(expect.objectContaining({ code: "CONVERSION_TIMEOUT" }));
  });

  it("refuses in toStreamBody, before the first byte, with a message that says what to do", () => {
    const response = json(200, { document: { base64: base64Text(Buffer.alloc(12 * MiB)) } });
    expect(() => toStreamBody(response, { remainingMs: 3_000 })).toThrow(/takes about \d+ s to send, and only 3 s .* send it again/);
    expect(toStreamBody(response, { remainingMs: 60_000 }).headers?.["Content-Length"]).toBe(
      String(Math.ceil((12 * MiB) / 3) * 4 + JSON.stringify({ document: { base64: "" } }).length),
    );
  });

  it("gives every streamed answer its Content-Length: a binary body by its bytes, text by its UTF-8 length", () => {
    const pdf = Buffer.from("%PDF-1.7 é");
    expect(toStreamBody({ statusCode: 200, headers: {}, body: pdf.toString("base64"), isBase64Encoded: true }).headers).toEqual({
      "Content-Length": String(pdf.length),
    });
    expect(toStreamBody({ statusCode: 400, body: '{"message":"é"}' }).headers).toEqual({ "Content-Length": "16" });
  });
});
