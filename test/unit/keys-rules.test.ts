import { describe, expect, it } from "vitest";
import { normalizeEmail } from "#domain/email-address.ts";
import { REGISTER_PER_ADDRESS, planSlots } from "#domain/rate-limit.ts";
import {
  CODE_MAX_WRONG_TRIES,
  CODE_TTL_SECONDS,
  checkCode,
  generateCode,
  hashCode,
  newCodeRecord,
  type CodeRecord,
} from "#domain/verification-code.ts";

describe("e-mail normalisation", () => {
  // One row: input, expected display form (or the refusal's issue pattern).
  const accepted: Array<[string, string, string]> = [
    ["me@example.com", "me@example.com", "me@example.com"],
    ["  me@example.com\u0020", "me@example.com", "me@example.com"],
    ["Me.Name+tag@Example.COM", "Me.Name+tag@example.com", "me.name+tag@example.com"],
    ["o'brien@sub.example.co.uk", "o'brien@sub.example.co.uk", "o'brien@sub.example.co.uk"],
    ["me@bücher.example", "me@xn--bcher-kva.example", "me@xn--bcher-kva.example"],
  ];
  it.each(accepted)("accepts %j", (raw, display, lookup) => {
    expect(normalizeEmail(raw)).toEqual({ ok: true, address: { display, lookup } });
  });

  const refused: Array<[string, RegExp]> = [
    ["", /empty/],
    ["me", /exactly one @/],
    ["@example.com", /exactly one @/],
    ["me@@example.com", /exactly one @/],
    ["a@b@example.com", /exactly one @/],
    ["me@example.com\r\nBcc: victim@example.org", /control characters/],
    ["me@example.com\nBcc: victim@example.org", /control characters/],
    ["me@exam\tple.com", /control characters/],
    ["me@example.com, other@example.com", /bare address/],
    ["Me <me@example.com>", /bare address/],
    ["\"me\"@example.com", /bare address/],
    ["me @example.com", /bare address/],
    [".me@example.com", /before the @/],
    ["me.@example.com", /before the @/],
    ["m..e@example.com", /before the @/],
    [`${"a".repeat(65)}@example.com`, /before the @/],
    ["me@localhost", /domain/],
    ["me@-example.com", /domain/],
    ["me@example..com", /domain/],
    ["me@127.0.0.1", /domain/],
    ["me@example.com.", /domain/],
    [`me@${"a".repeat(250)}.com`, /longer than 254/],
  ];
  it.each(refused)("refuses %j", (raw, issue) => {
    const check = normalizeEmail(raw);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.issue).toMatch(issue);
  });
});

describe("verification codes", () => {
  it("are 6 digits from the whole range, zero-padded", () => {
    expect(generateCode(() => 7)).toBe("000007");
    expect(generateCode(() => 999_999)).toBe("999999");
    for (let i = 0; i < 200; i++) expect(generateCode()).toMatch(/^\d{6}$/);
  });

  it("are stored salted and hashed, never as given", () => {
    const record = newCodeRecord("me@example.com", "123456", 0);
    expect(JSON.stringify(record)).not.toContain("123456");
    expect(record.codeHash).toBe(hashCode("123456", record.salt));
    expect(newCodeRecord("me@example.com", "123456", 0).codeHash).not.toBe(record.codeHash);
    expect(record.expiresAt).toBe(CODE_TTL_SECONDS * 1000);
  });

  const t0 = 1_000_000;
  const base = newCodeRecord("me@example.com", "123456", t0);
  const at = (patch: Partial<CodeRecord>) => ({ ...base, ...patch });
  // One row: record state, presented code, time, expected outcome.
  const rows: Array<[string, CodeRecord | undefined, string, number, ReturnType<typeof checkCode>]> = [
    ["the right code in time", base, "123456", t0 + 1000, { outcome: "match" }],
    ["the right code a millisecond before expiry", base, "123456", base.expiresAt - 1, { outcome: "match" }],
    ["a wrong code", base, "123457", t0, { outcome: "wrong" }],
    ["no code pending", undefined, "123456", t0, { outcome: "missing" }],
    ["the right code at expiry", base, "123456", base.expiresAt, { outcome: "expired" }],
    ["the right code after 4 wrong tries", at({ wrongTries: CODE_MAX_WRONG_TRIES - 1 }), "123456", t0, { outcome: "match" }],
    ["the right code after 5 wrong tries", at({ wrongTries: CODE_MAX_WRONG_TRIES }), "123456", t0 + 60_000, { outcome: "dead", retryAfterSeconds: 840 }],
    ["a wrong code after 5 wrong tries", at({ wrongTries: CODE_MAX_WRONG_TRIES }), "000000", t0, { outcome: "dead", retryAfterSeconds: 900 }],
    ["the right code once used", at({ consumedAt: t0 }), "123456", t0, { outcome: "used" }],
    ["an expired, dead code", at({ wrongTries: CODE_MAX_WRONG_TRIES }), "123456", base.expiresAt + 1, { outcome: "expired" }],
  ];
  it.each(rows)("%s", (_name, record, code, now, expected) => {
    expect(checkCode(record, code, now)).toEqual(expected);
  });
});

describe("sliding-window rate limit slots", () => {
  const rule = REGISTER_PER_ADDRESS; // 3 per 15 minutes
  const min = 60_000;
  const now = 100 * min;
  // One row: slot -> time used, expected plan.
  const rows: Array<[string, Array<[number, number]>, ReturnType<typeof planSlots>]> = [
    ["nothing used yet", [], { allowed: true, freeSlots: [0, 1, 2] }],
    ["one used a minute ago", [[0, now - min]], { allowed: true, freeSlots: [1, 2] }],
    ["all three used recently", [[0, now - 10 * min], [1, now - 5 * min], [2, now - min]], { allowed: false, retryAfterSeconds: 300 }],
    ["the oldest just left the window", [[0, now - 15 * min], [1, now - 5 * min], [2, now - min]], { allowed: true, freeSlots: [0] }],
    ["all three used this very millisecond", [[0, now], [1, now], [2, now]], { allowed: false, retryAfterSeconds: 900 }],
    ["a slot beyond the limit is ignored", [[0, now], [1, now], [7, now]], { allowed: true, freeSlots: [2] }],
    ["retry-after rounds up and is at least 1", [[0, now - 15 * min + 10], [1, now], [2, now]], { allowed: false, retryAfterSeconds: 1 }],
  ];
  it.each(rows)("%s", (_name, used, expected) => {
    expect(planSlots(new Map(used), rule, now)).toEqual(expected);
  });
});
