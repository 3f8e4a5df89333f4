import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { routes } from "#http/routes.ts";

// Every RouteName has its entry file functions/<name>.ts and its sample event events/<name>.json
// (what `sam local invoke` and test/integration/events.test.ts feed it), and neither folder holds a
// route-like file that no route claims. The per-route maps are checked by the compiler
// (`satisfies Record<RouteName, ...>`); files are not, hence this test.

const names = routes.map((route) => route.name as string).sort();
const baseNames = (folder: string, extension: string) =>
  readdirSync(new URL(`../../${folder}/`, import.meta.url), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(extension))
    .map((entry) => entry.name.slice(0, -extension.length));

// Not routes: the API-key authorizer, the fallback (404, 405, CORS preflight), the scheduled CRL
// issuer (EventBridge, daily), the webhook sweeper (EventBridge, every minute) and the office
// function (LibreOffice on AWS, invoked by sign, annotate and convert, never by the gateway) are
// Lambda functions without a catalogue entry; config.ts and timeouts.ts are settings every entry imports.
const otherEntries = ["authorizer", "config", "crl-issuer", "fallback", "jobs-worker", "office", "timeouts", "webhook-sweeper"];
// The authorizer's TOKEN event and the fallback's three.
const otherEvents = ["authorizer", "fallback-method-not-allowed", "fallback-not-found", "options-preflight"];

describe("each RouteName has its files", () => {
  it("functions/<name>.ts: one entry file per route, and nothing else besides the known non-route entries", () => {
    expect(baseNames("functions", ".ts").sort()).toEqual([...names, ...otherEntries].sort());
  });

  it("events/<name>.json: one sample event per route, and nothing else besides the authorizer's and the fallback's", () => {
    expect(baseNames("events", ".json").sort()).toEqual([...names, ...otherEvents].sort());
  });

  it("no route name is used twice", () => {
    expect(new Set(names).size).toBe(names.length);
  });
});
