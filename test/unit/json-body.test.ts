import { describe, expect, it } from "vitest";
import { decodeCanonicalBase64, isJsonContentType, jsonDepthExceeds, parseJsonBody, readJsonBody } from "#http/json-body.ts";

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

describe("decodeCanonicalBase64 (document.base64 from the body's bytes)", () => {
  // 200,003 bytes: several 64 KB windows and a last group of 2 bytes (1 padding character).
  const data = Buffer.from(Array.from({ length: 200_003 }, (_, i) => (i * 7919) % 256));
  const standard = data.toString("base64");
  const urlSafe = data.toString("base64url");
  const whole = data.subarray(0, 199_998).toString("base64"); // no last partial group
  const ascii = (text: string) => Buffer.from(text, "latin1");

  it("decodes base64 and base64url, padded or not, to the same bytes as Buffer.from", () => {
    expect(standard).toMatch(/[+/]/);
    for (const text of [standard, standard.replace(/=+$/, ""), urlSafe, `${urlSafe}=`]) {
      expect(decodeCanonicalBase64(ascii(text))?.equals(data)).toBe(true);
    }
  });

  it.each([
    ["a line break", `${standard.slice(0, 1000)}\n${standard.slice(1000)}`],
    ["a space", `${standard.slice(0, 70_000)} ${standard.slice(70_000)}`],
    ["both alphabets in different windows", `${standard.slice(0, 65_536)}${urlSafe.slice(65_536)}`],
    ["non-canonical trailing bits", `${standard.slice(0, -3)}B=`],
    ["padding that does not fit", `${standard.replace(/=+$/, "")}==`],
    ["a character outside both alphabets", `${standard.slice(0, 100)}*${standard.slice(101)}`],
    ["padding in the middle", `${standard.slice(0, 100)}=${standard.slice(101)}`],
    ["a data URI", `data:application/pdf;base64,${standard}`],
    ["a bad character in a text of whole groups", `${whole.slice(0, 100)}*${whole.slice(101)}`],
    ["a space in a text of whole groups", `${whole.slice(0, 100)} ${whole.slice(101)}`],
  ])("leaves %s to the string path", (_name, text) => {
    expect(decodeCanonicalBase64(ascii(text))).toBeUndefined();
  });

  it("decodes only the top-level document.base64; other long values stay strings", () => {
    const text = "A".repeat(70_000);
    const body = Buffer.from(JSON.stringify({ document: { base64: standard }, fields: [{ base64: standard, value: text }], note: standard }));
    const { value, document } = readJsonBody(body, 32, true);
    expect(document?.bytes.equals(data)).toBe(true);
    const parsed = value as { document: { base64: string }; fields: Array<{ base64: string; value: string }>; note: string };
    expect(parsed.document.base64).toBe(document?.placeholder);
    expect(parsed.document.base64.length).toBeLessThan(64);
    expect(parsed.fields[0]).toEqual({ base64: standard, value: text });
    expect(parsed.note).toBe(standard);
    expect(readJsonBody(body, 32, false).document).toBeUndefined();
    expect((parseJsonBody(body, 32) as { document: { base64: string } }).document.base64).toBe(standard);
  });

  it("keeps a document.base64 it cannot decode canonically as the string it was", () => {
    const wrapped = standard.replace(/(.{76})/g, "$1\\n");
    const { value, document } = readJsonBody(Buffer.from(`{"document":{"base64":"${wrapped}"}}`), 32, true);
    expect(document).toBeUndefined();
    expect((value as { document: { base64: string } }).document.base64).toBe(standard.replace(/(.{76})/g, "$1\n"));
  });
});
