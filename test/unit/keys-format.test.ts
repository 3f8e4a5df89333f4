import { crc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { verifyCodeRoute } from "#http/contracts/auth.ts";
import {
  KEY_LENGTH,
  base62Checksum,
  checkApiKeyFormat,
  generateApiKey,
  hashApiKey,
  keyHint,
  keyIdOf,
  parseBearer,
  randomBase62,
} from "#domain/keys/api-key.ts";

const valid = generateApiKey();
const body = valid.slice(4, 36);
const flip = (text: string, index: number) => text.slice(0, index) + (text[index] === "a" ? "b" : "a") + text.slice(index + 1);

describe("API key format (docs/api.md, API keys)", () => {
  it("is sgn_ + 32 base62 random characters + a 6-character base62 CRC32 checksum", () => {
    expect(valid).toMatch(/^sgn_[0-9A-Za-z]{38}$/);
    expect(valid).toHaveLength(KEY_LENGTH);
    expect(valid.slice(36)).toBe(base62Checksum(body));
    // The checksum is CRC32 of the random part, written in base62, most significant digit first.
    const digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const decoded = [...valid.slice(36)].reduce((n, c) => n * 62 + digits.indexOf(c), 0);
    expect(decoded).toBe(crc32(Buffer.from(body)));
  });

  it("draws fresh randomness every time and uses the whole alphabet", () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey());
    expect(new Set(keys).size).toBe(keys.length);
    const seen = new Set(keys.flatMap((key) => [...key.slice(4, 36)]));
    expect(seen.size).toBe(62);
  });

  it("rejects biased bytes instead of folding them into the alphabet", () => {
    // Bytes >= 248 are skipped; 248 % 62 would otherwise favour "0".
    let call = 0;
    const random = (size: number) => Buffer.alloc(size, call++ === 0 ? 255 : 1);
    expect(randomBase62(4, random)).toBe("1111");
  });

  // One row: presented key, expected check.
  const rows: Array<[string, string, ReturnType<typeof checkApiKeyFormat>]> = [
    ["a freshly generated key", valid, { ok: true }],
    ["a key with one random character changed", flip(valid, 10), { ok: false, reason: "checksum" }],
    ["a key with one checksum character changed", flip(valid, 40), { ok: false, reason: "checksum" }],
    [
      "two characters swapped",
      valid.slice(0, 5) + valid[6] + valid[5] + valid.slice(7),
      valid[5] === valid[6] ? { ok: true } : { ok: false, reason: "checksum" },
    ],
    ["a key cut short by one", valid.slice(0, -1), { ok: false, reason: "malformed" }],
    ["a key with one extra character", `${valid}x`, { ok: false, reason: "malformed" }],
    ["another prefix", `sk_${valid.slice(3)}`, { ok: false, reason: "malformed" }],
    ["an upper-case prefix", `SGN_${valid.slice(4)}`, { ok: false, reason: "malformed" }],
    ["a character outside base62", `${valid.slice(0, 20)}-${valid.slice(21)}`, { ok: false, reason: "malformed" }],
    ["a non-ASCII letter", `${valid.slice(0, 20)}é${valid.slice(21)}`, { ok: false, reason: "malformed" }],
    ["an empty string", "", { ok: false, reason: "malformed" }],
    ["the prefix only", "sgn_", { ok: false, reason: "malformed" }],
    ["surrounding whitespace", ` ${valid}`, { ok: false, reason: "malformed" }],
  ];
  it.each(rows)("%s", (_name, key, expected) => {
    expect(checkApiKeyFormat(key)).toEqual(expected);
  });

  it("is what the OpenAPI example shows", () => {
    const example = verifyCodeRoute.success.example as { key: string };
    expect(checkApiKeyFormat(example.key)).toEqual({ ok: true });
  });

  it("stores a SHA-256 hash and shows only a hint", () => {
    expect(hashApiKey(valid)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(valid)).not.toContain(body);
    expect(keyIdOf(hashApiKey(valid))).toMatch(/^key_[0-9a-f]{16}$/);
    expect(keyHint(valid)).toBe(`sgn_...${valid.slice(-4)}`);
    expect(keyHint(valid)).not.toContain(body.slice(0, 8));
  });
});

describe("Authorization header", () => {
  const rows: Array<[string | undefined, ReturnType<typeof parseBearer>]> = [
    [undefined, { ok: false, reason: "missing" }],
    ["", { ok: false, reason: "missing" }],
    ["   ", { ok: false, reason: "missing" }],
    [`Bearer ${valid}`, { ok: true, token: valid }],
    [`bearer ${valid}`, { ok: true, token: valid }],
    [`BEARER   ${valid}  `, { ok: true, token: valid }],
    [valid, { ok: false, reason: "not-bearer" }],
    [`Basic ${valid}`, { ok: false, reason: "not-bearer" }],
    [`Bearer ${valid} extra`, { ok: false, reason: "not-bearer" }],
    ["Bearer", { ok: false, reason: "not-bearer" }],
  ];
  it.each(rows)("%j", (header, expected) => {
    expect(parseBearer(header)).toEqual(expected);
  });
});
