import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import {
  DYNAMODB_CALL_BUDGET_MS,
  DYNAMODB_CLIENT_LIMITS,
  INTEGRATION_TIMEOUT_SECONDS,
  KEY_FUNCTION_TIMEOUT_SECONDS,
  KEY_FUNCTION_WORST_CASE_MS,
  SES_CLIENT_LIMITS,
  SES_SEND_BUDGET_MS,
} from "#functions/timeouts.ts";
import { mailboxOf, normalizeEmail } from "#domain/keys/email-address.ts";
import { denialMessages } from "#domain/keys/key-service.ts";
import {
  REGISTER_DAILY_WINDOW_SECONDS,
  REGISTER_PER_ADDRESS,
  describeWindow,
  ipBucketOf,
  planRules,
  planSlots,
  type RateLimit,
} from "#domain/keys/rate-limit.ts";
import {
  CODE_MAX_OTHER_TRIES,
  CODE_MAX_WRONG_TRIES,
  CODE_TTL_SECONDS,
  checkCode,
  decoyCodeRecord,
  generateCode,
  hashCode,
  newCodeRecord,
  type CodeRecord,
} from "#domain/keys/verification-code.ts";
import { gatewayAnswers } from "#http/gateway-responses.ts";
import { genericErrorExamples } from "#http/openapi-examples.ts";
import { verifyCodeRoute } from "#http/contracts/auth.ts";

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
    ['"me"@example.com', /bare address/],
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
    const record = newCodeRecord("me@example.com", "123456", 0, "192.0.2.1");
    expect(JSON.stringify(record)).not.toContain("123456");
    expect(record.codeHash).toBe(hashCode("123456", record.salt));
    expect(newCodeRecord("me@example.com", "123456", 0, "192.0.2.1").codeHash).not.toBe(record.codeHash);
    expect(record.expiresAt).toBe(CODE_TTL_SECONDS * 1000);
  });

  it("decoy records (addresses outside the allow-list) have a real record's shape and match no code", () => {
    const decoy = decoyCodeRecord("me@example.com", 0, "192.0.2.1");
    const real = newCodeRecord("me@example.com", "123456", 0, "192.0.2.1");
    expect(Object.keys(decoy).sort()).toEqual(Object.keys(real).sort());
    expect(JSON.stringify(decoy).length).toBe(JSON.stringify(real).length);
    for (const code of ["000000", "123456", "999999"]) expect(checkCode(decoy, code, 1, "192.0.2.1").outcome).toBe("wrong");
  });

  const t0 = 1_000_000;
  const home = "192.0.2.1"; // the network that asked for the code
  const away = "198.51.100.9"; // any other network
  const base = newCodeRecord("me@example.com", "123456", t0, home);
  const at = (patch: Partial<CodeRecord>) => ({ ...base, ...patch });
  const refused = { outcome: "refused" } as const;
  // One row: record state, presented code, time, source network, expected outcome. A caller
  // without the right code gets "refused" for every state: none pending, dead, closed, used, expired.
  const rows: Array<[string, CodeRecord | undefined, string, number, string, ReturnType<typeof checkCode>]> = [
    ["the right code in time", base, "123456", t0 + 1000, home, { outcome: "match" }],
    ["the right code from another network", base, "123456", t0 + 1000, away, { outcome: "match" }],
    ["the right code a millisecond before expiry", base, "123456", base.expiresAt - 1, home, { outcome: "match" }],
    ["a wrong code from the requester's network", base, "123457", t0, home, { outcome: "wrong", side: "requester" }],
    ["a wrong code from another network", base, "123457", t0, away, { outcome: "wrong", side: "other" }],
    ["a wrong code on a code stored without a requester", at({ requester: undefined }), "123457", t0, away, { outcome: "wrong", side: "requester" }],
    ["no code pending", undefined, "123456", t0, home, refused],
    ["the right code at expiry", base, "123456", base.expiresAt, home, { outcome: "expired" }],
    ["a wrong code at expiry", base, "123457", base.expiresAt, home, refused],
    ["the right code after 4 wrong tries", at({ wrongTries: CODE_MAX_WRONG_TRIES - 1 }), "123456", t0, home, { outcome: "match" }],
    ["the right code after 5 wrong tries (dead)", at({ wrongTries: CODE_MAX_WRONG_TRIES }), "123456", t0 + 60_000, home, refused],
    ["a wrong code after 5 wrong tries (dead)", at({ wrongTries: CODE_MAX_WRONG_TRIES }), "000000", t0, home, refused],
    [
      "the right code from the requester's network after 5 strangers' tries",
      at({ otherTries: CODE_MAX_OTHER_TRIES }),
      "123456",
      t0,
      home,
      { outcome: "match" },
    ],
    ["the right code from another network after 5 strangers' tries (closed)", at({ otherTries: CODE_MAX_OTHER_TRIES }), "123456", t0, away, refused],
    ["the right code once used", at({ consumedAt: t0 }), "123456", t0, home, { outcome: "used" }],
    ["a wrong code once used", at({ consumedAt: t0 }), "123457", t0, home, refused],
    ["an expired, dead code", at({ wrongTries: CODE_MAX_WRONG_TRIES }), "123456", base.expiresAt + 1, home, refused],
  ];
  it.each(rows)("%s", (_name, record, code, now, source, expected) => {
    expect(checkCode(record, code, now, source)).toEqual(expected);
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
    [
      "all three used recently",
      [
        [0, now - 10 * min],
        [1, now - 5 * min],
        [2, now - min],
      ],
      { allowed: false, retryAfterSeconds: 300 },
    ],
    [
      "the oldest just left the window",
      [
        [0, now - 15 * min],
        [1, now - 5 * min],
        [2, now - min],
      ],
      { allowed: true, freeSlots: [0] },
    ],
    [
      "all three used this very millisecond",
      [
        [0, now],
        [1, now],
        [2, now],
      ],
      { allowed: false, retryAfterSeconds: 900 },
    ],
    [
      "a slot beyond the limit is ignored",
      [
        [0, now],
        [1, now],
        [7, now],
      ],
      { allowed: true, freeSlots: [2] },
    ],
    [
      "retry-after rounds up and is at least 1",
      [
        [0, now - 15 * min + 10],
        [1, now],
        [2, now],
      ],
      { allowed: false, retryAfterSeconds: 1 },
    ],
  ];
  it.each(rows)("%s", (_name, used, expected) => {
    expect(planSlots(new Map(used), rule, now)).toEqual(expected);
  });
});

describe("the daily per-address rule", () => {
  const daily: RateLimit = { limit: 10, windowSeconds: REGISTER_DAILY_WINDOW_SECONDS };
  const hour = 3_600_000;
  const now = 100 * hour;
  /** times spreads `count` events `stepMs` apart, the newest at `newest`, into slots 0..count-1. */
  const times = (count: number, newest: number, stepMs: number): Array<[number, number]> =>
    Array.from({ length: count }, (_, i) => [i, newest - (count - 1 - i) * stepMs]);
  // One row: slot -> time used, expected plan.
  const rows: Array<[string, Array<[number, number]>, ReturnType<typeof planSlots>]> = [
    ["nine codes today", times(9, now, hour), { allowed: true, freeSlots: [9] }],
    ["ten codes in the last 9 hours", times(10, now, hour), { allowed: false, retryAfterSeconds: 15 * 3600 }],
    ["ten codes, the oldest a second short of a day ago", times(10, now, (24 * hour - 1000) / 9), { allowed: false, retryAfterSeconds: 1 }],
    ["ten codes, the oldest exactly a day ago", times(10, now, (24 * hour) / 9), { allowed: true, freeSlots: [0] }],
    ["ten codes this very millisecond", times(10, now, 0), { allowed: false, retryAfterSeconds: 86_400 }],
  ];
  it.each(rows)("%s", (_name, used, expected) => {
    expect(planSlots(new Map(used), daily, now)).toEqual(expected);
  });

  it("caps guessing at 10 codes x 5 tries a day, against 1,440 with the 15-minute rule alone", () => {
    const tries = (rule: RateLimit) => (rule.limit * CODE_MAX_WRONG_TRIES * 86_400) / rule.windowSeconds;
    expect(tries(REGISTER_PER_ADDRESS)).toBe(1440);
    expect(tries(daily)).toBe(50);
  });
});

describe("several rules at once (IP, address per 15 minutes, address per day)", () => {
  const min = 60_000;
  const now = 10_000 * min;
  const ip: RateLimit = { limit: 20, windowSeconds: 3600 };
  const quarter = REGISTER_PER_ADDRESS;
  const daily: RateLimit = { limit: 10, windowSeconds: REGISTER_DAILY_WINDOW_SECONDS };
  const slots = (...ages: number[]) => new Map(ages.map((age, i) => [i, now - age * min] as [number, number]));
  const none = new Map<number, number>();
  const dayFull = slots(45, 45, 45, 30, 15, 15, 15, 1, 1, 1); // oldest 45 minutes ago
  const quarterFull = slots(10, 5, 1); // oldest 10 minutes ago
  // One row: the slots of [ip, 15 minutes, day], expected verdict.
  const rows: Array<[string, [Map<number, number>, Map<number, number>, Map<number, number>], ReturnType<typeof planRules>]> = [
    [
      "all free",
      [none, none, none],
      {
        allowed: true,
        plans: [
          { allowed: true, freeSlots: range(20) },
          { allowed: true, freeSlots: [0, 1, 2] },
          { allowed: true, freeSlots: range(10) },
        ],
      },
    ],
    ["only the 15-minute rule full", [none, quarterFull, slots(10, 5, 1)], { allowed: false, rule: 1, retryAfterSeconds: 5 * 60 }],
    ["only the day full", [none, slots(45), dayFull], { allowed: false, rule: 2, retryAfterSeconds: 24 * 3600 - 45 * 60 }],
    ["both address rules full: the day's longer wait wins", [none, quarterFull, dayFull], { allowed: false, rule: 2, retryAfterSeconds: 24 * 3600 - 45 * 60 }],
    ["IP full for longer than the 15-minute rule", [slots(...Array(20).fill(1)), quarterFull, none], { allowed: false, rule: 0, retryAfterSeconds: 59 * 60 }],
    ["equal waits: the first rule is named", [slots(...Array(20).fill(59)), slots(14, 5, 1), none], { allowed: false, rule: 0, retryAfterSeconds: 60 }],
  ];
  it.each(rows)("%s", (_name, [ipUsed, quarterUsed, dayUsed], expected) => {
    const plan = planRules(
      [
        { used: ipUsed, rule: ip },
        { used: quarterUsed, rule: quarter },
        { used: dayUsed, rule: daily },
      ],
      now,
    );
    expect(plan).toEqual(expected);
  });
});

describe("SIGNET_REGISTER_DAILY_LIMIT", () => {
  // One row: the variable's value (undefined: unset), the limit it gives or the error it raises.
  const rows: Array<[string | undefined, number | RegExp]> = [
    [undefined, 10],
    ["", 10],
    ["4", 4],
    ["0", /SIGNET_REGISTER_DAILY_LIMIT must be a positive integer/],
    ["ten", /SIGNET_REGISTER_DAILY_LIMIT must be a positive integer/],
    ["2.5", /SIGNET_REGISTER_DAILY_LIMIT must be a positive integer/],
  ];
  it.each(rows)("%j gives %s", (value, expected) => {
    const load = () => loadConfig(value === undefined ? {} : { SIGNET_REGISTER_DAILY_LIMIT: value });
    if (expected instanceof RegExp) expect(load).toThrow(expected);
    else expect(load().keys.registerPerAddressDaily).toEqual({ limit: expected, windowSeconds: 86_400 });
  });
});

describe("window words in messages", () => {
  const rows: Array<[number, string]> = [
    [900, "15 minutes"],
    [86_400, "24 hours"],
    [3600, "1 hour"],
    [60, "1 minute"],
    [90, "90 seconds"],
  ];
  it.each(rows)("%i seconds is %j", (seconds, words) => expect(describeWindow(seconds)).toBe(words));
});

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

describe("rate-limit buckets", () => {
  const ips: Array<[string, string]> = [
    ["198.51.100.7", "198.51.100.7"],
    ["::ffff:198.51.100.7", "198.51.100.7"],
    ["::ffff:c633:6407", "198.51.100.7"],
    ["2001:db8:7:42::1", "2001:db8:7:42::/64"],
    ["2001:0DB8:0007:0042:ffff:1:2:3", "2001:db8:7:42::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["", "unknown"],
    ["not-an-ip", "not-an-ip"],
  ];
  it.each(ips)("source %j counts as %j", (ip, bucket) => expect(ipBucketOf(ip)).toBe(bucket));

  const mailboxes: Array<[string, string]> = [
    ["me@example.com", "me@example.com"],
    ["me+1@example.com", "me@example.com"],
    ["me+a+b@example.com", "me@example.com"],
    ["+tag@example.com", "+tag@example.com"],
    ["me.name+x@sub.example.org", "me.name@sub.example.org"],
  ];
  it.each(mailboxes)("address %j counts as mailbox %j", (lookup, mailbox) => expect(mailboxOf(lookup)).toBe(mailbox));
});

describe("one wording and one pattern", () => {
  it("the gateway, the authorizer and the OpenAPI example say the same about a missing key", async () => {
    expect(gatewayAnswers.missingKey.message).toBe(denialMessages.missing);
    expect(genericErrorExamples.AUTHENTICATION_ERROR.message).toBe(denialMessages.missing);
    expect(Object.values(denialMessages).join("")).not.toMatch(/["\\]/);
  });

  it("the verify contract checks codes with the domain's pattern", async () => {
    const query = verifyCodeRoute.query as unknown as { parse(v: unknown): unknown };
    for (const code of ["123456", "000000"]) expect(() => query.parse({ email: "me@example.com", code })).not.toThrow();
    for (const code of ["12345", "1234567", "12345a", " 123456"]) expect(() => query.parse({ email: "me@example.com", code })).toThrow();
    expect(readFileSync(new URL("../../functions/http/contracts/auth.ts", import.meta.url), "utf8")).toContain(".regex(CODE_PATTERN");
  });
});

describe("time budgets of the API-key functions", () => {
  it("bound each SDK call and add up per function", () => {
    expect(DYNAMODB_CLIENT_LIMITS).toEqual({ maxAttempts: 2, connectionTimeoutMs: 1_000, requestTimeoutMs: 2_000 });
    expect(SES_CLIENT_LIMITS).toEqual({ maxAttempts: 2, connectionTimeoutMs: 1_000, requestTimeoutMs: 3_000 });
    expect(DYNAMODB_CALL_BUDGET_MS).toBe(6_000);
    expect(SES_SEND_BUDGET_MS).toBe(8_000);
    expect(KEY_FUNCTION_WORST_CASE_MS).toEqual({ "auth-register": 15_000, "auth-verify": 9_000, authorizer: 7_000 });
    // The one pin of the key functions' Lambda time-outs (the stack deploys these, test/infra/stack.test.ts):
    // each above its worst case with a second to spare, and below API Gateway's 29 s.
    expect(KEY_FUNCTION_TIMEOUT_SECONDS).toEqual({ "auth-register": 20, "auth-verify": 20, authorizer: 10 });
    for (const [name, ms] of Object.entries(KEY_FUNCTION_WORST_CASE_MS)) {
      expect(KEY_FUNCTION_TIMEOUT_SECONDS[name as keyof typeof KEY_FUNCTION_WORST_CASE_MS] * 1000, name).toBeGreaterThanOrEqual(ms + 1000);
      expect(KEY_FUNCTION_TIMEOUT_SECONDS[name as keyof typeof KEY_FUNCTION_WORST_CASE_MS], name).toBeLessThan(INTEGRATION_TIMEOUT_SECONDS);
    }
  });
});
