import { describe, expect, it } from "vitest";
import { isJsonContentType, jsonDepthExceeds, parseJsonBody } from "#http/json-body.ts";

describe("jsonDepthExceeds", () => {
  it.each([
    ['{"a":1}', 1, false],
    ['{"a":{"b":[1]}}', 3, false],
    ['{"a":{"b":[1]}}', 2, true],
    ['{"a":"[[[[[[[[["}', 1, false],
    ['{"a":"\\"[[[[["}', 1, false],
    ["[".repeat(33) + "]".repeat(33), 32, true],
    ["[".repeat(32) + "]".repeat(32), 32, false],
    // An escaped backslash ends right before the closing quote: the brackets after it count.
    ['{"a":"x\\\\","b":[[1]]}', 2, true],
    ['{"a":"x\\\\","b":[[1]]}', 3, false],
    ['{"a":"' + "A".repeat(100_000) + '","b":[[1]]}', 2, true],
    ['{"a":"unterminated [[[[', 1, false],
  ])("%s at max %i -> %s", (text, max, expected) => {
    expect(jsonDepthExceeds(text, max)).toBe(expected);
  });
});

describe("parseJsonBody", () => {
  it("parses JSON", () => expect(parseJsonBody('{"a":[1,2]}', 32)).toEqual({ a: [1, 2] }));
  it("refuses an empty body", () => expect(() => parseJsonBody("  ", 32)).toThrowError(/empty/));
  it("refuses malformed JSON with the parser's hint", () => expect(() => parseJsonBody('{"a":', 32)).toThrowError(/not valid JSON/));
  it("refuses deep JSON before parsing", () => expect(() => parseJsonBody("[".repeat(100_000), 32)).toThrowError(/deeper than 32/));
});

describe("isJsonContentType", () => {
  it.each([
    ["application/json", true],
    ["application/json; charset=utf-8", true],
    ["Application/JSON", true],
    ["application/problem+json", false],
    ["application/vnd.api+json", false],
    ["text/plain", false],
    ["application/x-www-form-urlencoded", false],
    [undefined, false],
  ])("%s -> %s", (type, expected) => expect(isJsonContentType(type)).toBe(expected));
});

describe("parseJsonBody on bytes with long string members", () => {
  const long = "QUJD".repeat(40_000); // 160 KB of base64
  const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

  it("gives the same value as parsing the text", () => {
    const body = { document: { base64: long }, signer: { name: 'Zoë "Z" Ångström' }, list: [long, "short", long.slice(1)], n: 1 };
    expect(parseJsonBody(bytes(body), 32)).toEqual(body);
  });

  it("keeps long strings with escapes or non-ASCII exact (they go through the parser)", () => {
    const body = { escaped: `${long}\\/${long}`, quoted: `"${long}"`, accented: `${long}é` };
    expect(parseJsonBody(bytes(body), 32)).toEqual(body);
  });

  it("still refuses deep and malformed bodies", () => {
    expect(() => parseJsonBody(Buffer.from(`{"a":"${long}","b":${"[".repeat(100)}`), 32)).toThrowError(/deeper than 32/);
    expect(() => parseJsonBody(Buffer.from(`{"a":"${long}",}`), 32)).toThrowError(/not valid JSON/);
    expect(() => parseJsonBody(Buffer.from(`{"a":"${long}`), 32)).toThrowError(/not valid JSON/);
  });

  it("keeps a long member name as it is (only values are lifted out)", () => {
    const body = { metadata: { [long]: "v", k: long }, [long.slice(2)]: [long] };
    expect(parseJsonBody(Buffer.from(JSON.stringify(body, null, 1)), 32)).toEqual(body);
  });

  it("cannot be fooled by a member that spells a marker", () => {
    const body = { a: long, b: "\u0000deadbeef:0" };
    expect(parseJsonBody(bytes(body), 32)).toEqual(body);
  });
});
