// The response helpers: JSON with spliced base64 and Content-Disposition.
import { describe, expect, it, vi } from "vitest";
import { attachmentDisposition, base64Text, bodyPartsOf, json } from "#http/responses.ts";
import { toStreamBody } from "#http/streaming.ts";

describe("json with base64Text members", () => {
  it("gives the same text JSON.stringify would", () => {
    const bytes = Buffer.from(Array.from({ length: 100_000 }, (_, i) => i & 0xff));
    const body = {
      document: { base64: base64Text(bytes), contentType: "application/pdf" },
      list: [base64Text(bytes.subarray(0, 10), "data:image/png;base64,"), "plain"],
    };
    const expected = JSON.stringify({
      document: { base64: bytes.toString("base64"), contentType: "application/pdf" },
      list: [`data:image/png;base64,${bytes.subarray(0, 10).toString("base64")}`, "plain"],
    });
    expect(json(200, body).body).toBe(expected);
  });

  it("cannot be fooled by a caller's string that looks like a marker", () => {
    const body = { note: "\u0000safe0\u0000", data: base64Text(Buffer.from("hi")) };
    expect(JSON.parse(json(200, body).body)).toEqual({ note: "\u0000safe0\u0000", data: "aGk=" });
  });

  it("keeps the pieces for the local server, whose lengths add up to the body's", () => {
    const bytes = Buffer.alloc(100_001, 7);
    const response = json(200, { document: { base64: base64Text(bytes), contentType: "application/pdf" }, name: "résumé" });
    const parts = bodyPartsOf(response)!;
    expect(parts.filter((part) => typeof part !== "string")).toHaveLength(1);
    const length = parts.reduce((sum, part) => sum + (typeof part === "string" ? Buffer.byteLength(part) : part.length), 0);
    expect(length).toBe(Buffer.byteLength(response.body));
  });

  it("has no pieces without base64Text, and drops them when the body is replaced", () => {
    expect(bodyPartsOf(json(200, { a: 1 }))).toBeUndefined();
    const response = json(200, { data: base64Text(Buffer.from("hi")) });
    response.body = "{}";
    expect(bodyPartsOf(response)).toBeUndefined();
    expect(response.body).toBe("{}");
  });

  it("streams in small pieces without ever joining the body (toStreamBody)", async () => {
    const bytes = Buffer.from(Array.from({ length: 300_001 }, (_, i) => (i * 7) & 0xff));
    const response = json(200, { document: { base64: base64Text(bytes) }, name: "résumé" }, { "X-Test": "1" });
    const expected = JSON.stringify({ document: { base64: bytes.toString("base64") }, name: "résumé" });
    const joined = vi.spyOn(response, "body", "get");
    const streamed = toStreamBody(response);
    // The whole answer is known before its first byte: its length goes in the metadata.
    expect(streamed.headers).toEqual({ ...response.headers, "Content-Length": String(Buffer.byteLength(expected)) });
    const pieces: string[] = [];
    for await (const piece of streamed.body as unknown as AsyncIterable<string>) pieces.push(piece);
    expect(pieces.join("")).toBe(expected);
    expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(65_536);
    expect(joined).not.toHaveBeenCalled();
  });

  it("refuses a prefix that would need escaping", () => {
    expect(() => base64Text(Buffer.from("x"), 'data:"x";base64,')).toThrowError(/escaping/);
  });
});

describe("attachmentDisposition", () => {
  it.each([
    ["contract.pdf", `attachment; filename="contract.pdf"; filename*=UTF-8''contract.pdf`],
    ["résumé.pdf", `attachment; filename="resume.pdf"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf`],
    ["契約.pdf", `attachment; filename="__.pdf"; filename*=UTF-8''%E5%A5%91%E7%B4%84.pdf`],
    ['a"b\\c%.pdf', `attachment; filename="a_b_c_.pdf"; filename*=UTF-8''a%22b%5Cc%25.pdf`],
  ])("%s", (name, expected) => expect(attachmentDisposition(name)).toBe(expected));
});
