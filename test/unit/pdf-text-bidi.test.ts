import { describe, expect, it } from "vitest";
import { paragraphDirection, visualOrder } from "#domain/pdf-text/bidi.ts";

// The issue-14 example is what GNU FriBidi gives; the others follow UAX #9 rules W1-W7, N1-N2, L2, L4.
describe("visualOrder (UAX #9 through bidi-js)", () => {
  it.each([
    { name: "Hebrew with a number, a geresh and a dash", text: "חוזה שכירות מס׳ 42 — גרסה 3", visual: "3 הסרג — 42 ׳סמ תוריכש הזוח" },
    { name: "Latin first: the paragraph is left to right", text: "Contract חוזה 42", visual: "Contract 42 הזוח" },
    { name: "brackets in right-to-left text are mirrored", text: "שם (פרטי)", visual: "(יטרפ) םש" },
    { name: "plain Latin is untouched", text: "Zoë Ångström-Núñez (42)", visual: "Zoë Ångström-Núñez (42)" },
    { name: "an emoji in Hebrew keeps its surrogate pair", text: "שלום 😀", visual: "😀 םולש" },
  ])("orders $name", ({ text, visual }) => expect(visualOrder(text)).toBe(visual));

  it("keeps combining marks after their base letter when a run is reversed", () => {
    // shin + shin dot + qamats, lamed, vav + holam, final mem
    expect(visualOrder("שָׁלוֹם")).toBe("םוֹלשָׁ");
  });

  it("shapes Arabic in logical order, then reorders (digits stay left to right)", () => {
    const visual = visualOrder("عقد 42");
    expect(visual.startsWith("42 ")).toBe(true);
    // ain (initial) + qaf (medial) + dal (final), drawn right to left: final dal first.
    expect(visual.slice(3)).toBe("\ufeaa\ufed8\ufecb");
  });

  it.each([
    ["חוזה 42", "rtl"],
    ["42 חוזה", "rtl"],
    ["Name חוזה", "ltr"],
    ["123", "ltr"],
    ["محمد", "rtl"],
  ] as const)("takes the paragraph direction of %j from its first strong character: %s", (text, direction) => expect(paragraphDirection(text)).toBe(direction));
});
