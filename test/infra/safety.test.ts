import { beforeAll, describe, expect, it } from "vitest";
import { functionLogicalId, reservedConcurrencyDefaults } from "../../infra/signet-stack.ts";
import { resourcesOfType, synthesize, type Synthesized } from "#test/helpers/infra-synth.ts";

// Issue 17, "safe to run on a personal AWS account": the guard rails of the stack, checked on the
// default deployment and on one with every optional guard rail asked for. Synthesized once each.
let plain: Synthesized;
let guarded: Synthesized;
beforeAll(() => {
  plain = synthesize({ senderEmail: "noreply@example.com" });
  guarded = synthesize({
    senderEmail: "noreply@example.com",
    alarmEmail: "ops@example.com",
    budgetUsd: "20",
    reservedConcurrency: "3",
    verifyConcurrency: "7",
  });
}, 240_000);

const fnProps = (synth: Synthesized, name: string) => synth.json.Resources[functionLogicalId(name)]!.Properties;

describe("reserved concurrency", () => {
  it("caps sign, annotate, convert and verify by default, leaving 100 of a 1,000 quota unreserved", () => {
    for (const [name, count] of Object.entries(reservedConcurrencyDefaults)) expect(fnProps(plain, name).ReservedConcurrentExecutions, name).toBe(count);
    expect(Object.keys(reservedConcurrencyDefaults).sort()).toEqual(["annotate", "convert", "sign", "verify"]);
    const total = resourcesOfType(plain.json, "AWS::Lambda::Function").reduce((sum, [, fn]) => sum + ((fn.Properties.ReservedConcurrentExecutions as number) ?? 0), 0);
    expect(1000 - total).toBeGreaterThanOrEqual(100);
  });

  it("takes one number for all and a per-function override from context", () => {
    expect(fnProps(guarded, "sign").ReservedConcurrentExecutions).toBe(3);
    expect(fnProps(guarded, "convert").ReservedConcurrentExecutions).toBe(3);
    expect(fnProps(guarded, "verify").ReservedConcurrentExecutions).toBe(7);
    expect(fnProps(guarded, "health").ReservedConcurrentExecutions).toBeUndefined();
  });

  it("reserves nothing with reservedConcurrency=off (new accounts with a quota of 10)", () => {
    const off = synthesize({ senderEmail: "noreply@example.com", reservedConcurrency: "off" });
    for (const [, fn] of resourcesOfType(off.json, "AWS::Lambda::Function")) expect(fn.Properties.ReservedConcurrentExecutions).toBeUndefined();
  }, 120_000);

  it("refuses counts that are not whole numbers", () => {
    expect(() => synthesize({ senderEmail: "noreply@example.com", signConcurrency: "2.5" })).toThrow(/signConcurrency must be a whole number/);
  });
});

describe("budget", () => {
  it("adds no budget unless asked", () => {
    plain.template.resourceCountIs("AWS::Budgets::Budget", 0);
  });

  it("adds a monthly cost budget mailing alarmEmail at 80 % actual and 100 % forecast", () => {
    guarded.template.resourceCountIs("AWS::Budgets::Budget", 1);
    guarded.template.hasResourceProperties("AWS::Budgets::Budget", {
      Budget: { BudgetType: "COST", TimeUnit: "MONTHLY", BudgetLimit: { Amount: 20, Unit: "USD" } },
      NotificationsWithSubscribers: [
        { Notification: { NotificationType: "ACTUAL", Threshold: 80 }, Subscribers: [{ SubscriptionType: "EMAIL", Address: "ops@example.com" }] },
        { Notification: { NotificationType: "FORECASTED", Threshold: 100 }, Subscribers: [{ SubscriptionType: "EMAIL", Address: "ops@example.com" }] },
      ],
    });
  });

  it("refuses a budget without an address to mail", () => {
    expect(() => synthesize({ senderEmail: "noreply@example.com", budgetUsd: "20" })).toThrow(/budgetUsd needs alarmEmail/);
  });
});
