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
