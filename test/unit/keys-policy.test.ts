import { describe, expect, it } from "vitest";
import { loadConfig } from "#config";
import { fixedWindowOf } from "#domain/keys/rate-limit.ts";
import { parseRegisterPolicy, registrationAllowed } from "#domain/keys/register-policy.ts";

describe("SIGNET_REGISTER_ALLOW", () => {
  const policy = parseRegisterPolicy(" Owner@Example.com , @example.org,team.example.net ");
  // One row: address (lookup form), allowed?
  const rows: Array<[string, boolean]> = [
    ["owner@example.com", true],
    ["owner+laptop@example.com", true],
    ["other@example.com", false],
    ["anyone@example.org", true],
    ["x@sub.example.org", false],
    ["x@example.org.evil.com", false],
    ["a@team.example.net", true],
    ["a@example.net", false],
  ];
  for (const [address, allowed] of rows) it(`${allowed ? "allows" : "refuses"} ${address}`, () => expect(registrationAllowed(policy, address)).toBe(allowed));

  it("is open when unset or empty", () => {
    expect(parseRegisterPolicy(undefined)).toEqual({ open: true });
    expect(parseRegisterPolicy(" , ")).toEqual({ open: true });
    expect(registrationAllowed(parseRegisterPolicy(""), "anyone@anywhere.com")).toBe(true);
  });

  it("fails loudly at start on an entry that is neither an address nor a domain, naming it", () => {
    expect(() => loadConfig({ SIGNET_REGISTER_ALLOW: "me@example.com,not a domain" })).toThrow(/SIGNET_REGISTER_ALLOW.*"not a domain"/);
    expect(() => loadConfig({ SIGNET_REGISTER_ALLOW: "localhost" })).toThrow(/"localhost"/);
  });
});

describe("SIGNET_KEY_RATE_LIMIT", () => {
  it("defaults to 60 per minute and must be a positive integer", () => {
    expect(loadConfig({}).keys.ratePerMinute).toBe(60);
    expect(loadConfig({ SIGNET_KEY_RATE_LIMIT: "5" }).keys.ratePerMinute).toBe(5);
    expect(() => loadConfig({ SIGNET_KEY_RATE_LIMIT: "0" })).toThrow(/SIGNET_KEY_RATE_LIMIT/);
  });

  it("counts in aligned minutes, and a refusal waits until the minute ends", () => {
    const at = Date.UTC(2030, 0, 1, 12, 0, 59, 500);
    expect(fixedWindowOf(at, 60)).toEqual({ start: Date.UTC(2030, 0, 1, 12, 0, 0), end: Date.UTC(2030, 0, 1, 12, 1, 0), resetsInSeconds: 1 });
    expect(fixedWindowOf(Date.UTC(2030, 0, 1, 12, 1, 0), 60).resetsInSeconds).toBe(60);
  });
});
