import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { samEvents } from "../../scripts/sam-events.ts";

// npm run sam:events: every function has a sample event, and every sample event a function.
describe("sam:events", () => {
  const files = readdirSync(new URL("../../events/", import.meta.url));
  const listing = samEvents(files);

  it("gives every function of the stack at least one event", () => {
    for (const entry of listing) expect(entry.events.length, entry.name).toBeGreaterThan(0);
    expect(listing.find((entry) => entry.name === "fallback")!.events).toEqual([
      "events/fallback-method-not-allowed.json",
      "events/fallback-not-found.json",
      "events/options-preflight.json",
    ]);
  });

  it("leaves no event in events/ without its function", () => {
    const used = new Set(listing.flatMap((entry) => entry.events));
    expect(files.map((file) => `events/${file}`).filter((file) => !used.has(file))).toEqual([]);
  });

  it("marks sign, annotate, convert and the PDF tools as streamed", () => {
    expect(listing.filter((entry) => entry.streaming).map((entry) => entry.logicalId)).toEqual([
      "SignFunction",
      "AnnotateFunction",
      "ConvertFunction",
      "ProtectFunction",
      "UnprotectFunction",
      "MergeFunction",
      "SplitFunction",
      "PagesFunction",
      "StampFunction",
      "MetadataFunction",
    ]);
  });
});
