// The converter's decisions (adapters/libreoffice/plan.ts), pure: one row = the facts, the decision.
import { describe, expect, it } from "vitest";
import { planAfterJob, planAttempt, planStart, type Attempt, type AttemptFacts, type AttemptFailure } from "#adapters/libreoffice/plan.ts";

const warm: Attempt = { kind: "warm" };
const handOver: Attempt = { kind: "hand-over" };
const oneShot = (profile: "warm" | "oneshot", freshOutput: boolean): Attempt => ({ kind: "one-shot", profile, freshOutput, restartWarm: profile === "warm" });
const fail = (error: "timeout" | "unreadable"): Attempt => ({ kind: "fail", error });

describe("planAttempt: the first attempt", () => {
  it.each<[string, AttemptFacts, Attempt]>([
    ["warm path there, an ordinary document: warm", { warm: true, knownCrasher: false, budgetLeftMs: 60_000 }, warm],
    ["warm path there, a known crasher: handed over to the warm instance", { warm: true, knownCrasher: true, budgetLeftMs: 60_000 }, handOver],
    [
      "no warm path (mode oneshot, no python3-uno, or given up): one-shot on its own profile",
      { warm: false, knownCrasher: false, budgetLeftMs: 60_000 },
      oneShot("oneshot", false),
    ],
    ["no warm path, a known crasher: one-shot all the same", { warm: false, knownCrasher: true, budgetLeftMs: 60_000 }, oneShot("oneshot", false)],
    ["no budget left: time-out without starting anything", { warm: true, knownCrasher: false, budgetLeftMs: 0 }, fail("timeout")],
  ])("%s", (_name, facts, expected) => {
    expect(planAttempt(facts)).toEqual(expected);
  });
});

describe("planAttempt: after a failed attempt", () => {
  // Every failure, with budget left and without; the warm and crasher facts do not change the answer.
  it.each<[AttemptFailure, Attempt, Attempt]>([
    ["warm-crashed", oneShot("warm", true), fail("timeout")],
    ["warm-unavailable", oneShot("oneshot", true), fail("timeout")],
    ["warm-timeout", fail("timeout"), fail("timeout")],
    ["warm-unreadable", fail("unreadable"), fail("unreadable")],
    ["handover-no-warm", oneShot("warm", false), fail("timeout")],
    ["handover-failed", oneShot("warm", true), fail("timeout")],
    ["handover-timeout", fail("timeout"), fail("timeout")],
  ])("%s: %o with budget, %o without", (previous, withBudget, withoutBudget) => {
    for (const warmPath of [true, false]) {
      for (const knownCrasher of [true, false]) {
        expect(planAttempt({ warm: warmPath, knownCrasher, budgetLeftMs: 1, previous })).toEqual(withBudget);
        expect(planAttempt({ warm: warmPath, knownCrasher, budgetLeftMs: -5, previous })).toEqual(withoutBudget);
      }
    }
  });

  it("never plans a third attempt: every retry is a one-shot or an end", () => {
    const failures: AttemptFailure[] = [
      "warm-crashed",
      "warm-unavailable",
      "warm-timeout",
      "warm-unreadable",
      "handover-no-warm",
      "handover-failed",
      "handover-timeout",
    ];
    for (const previous of failures)
      expect(["one-shot", "fail"]).toContain(planAttempt({ warm: true, knownCrasher: false, budgetLeftMs: 1000, previous }).kind);
  });
});

describe("planAfterJob", () => {
  it.each([
    { recycle: true, succeeded: true, warmStopped: true, warm: true, expected: { recycle: true, restartWarm: false } },
    { recycle: true, succeeded: false, warmStopped: false, warm: true, expected: { recycle: true, restartWarm: false } },
    { recycle: true, succeeded: true, warmStopped: false, warm: false, expected: { recycle: true, restartWarm: false } },
    { recycle: false, succeeded: true, warmStopped: true, warm: true, expected: { recycle: false, restartWarm: true } },
    { recycle: false, succeeded: true, warmStopped: true, warm: false, expected: { recycle: false, restartWarm: false } },
    { recycle: false, succeeded: true, warmStopped: false, warm: true, expected: { recycle: false, restartWarm: false } },
    { recycle: false, succeeded: false, warmStopped: true, warm: true, expected: { recycle: false, restartWarm: false } },
    { recycle: false, succeeded: false, warmStopped: false, warm: false, expected: { recycle: false, restartWarm: false } },
  ])("recycle $recycle, succeeded $succeeded, warm stopped $warmStopped, warm path $warm", ({ expected, ...facts }) => {
    expect(planAfterJob(facts)).toEqual(expected);
  });
});

describe("planStart", () => {
  it.each([
    { mode: "auto", files: "bwrap", expected: "start" },
    { mode: "required", files: "bwrap", expected: "start" },
    { mode: "off", files: "bwrap", expected: "start" },
    { mode: "auto", files: "none", expected: "warn" },
    { mode: "off", files: "none", expected: "warn" },
    { mode: "none", files: "none", expected: "warn" },
    { mode: "required", files: "none", expected: "refuse" },
  ] as const)("isolation $mode, sandbox $files: $expected", ({ mode, files, expected }) => {
    expect(planStart({ mode, files })).toBe(expected);
  });
});
