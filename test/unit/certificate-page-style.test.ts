// The certificate page's style table (style.ts): the layout it describes fits on every page it allows.
import { describe, expect, it } from "vitest";
import { STYLE } from "#domain/certificate-page/style.ts";

describe("certificate style", () => {
  const { min, fallback, margin } = STYLE.page;

  // On A5 the details column is about 70 points: narrow, but every value wraps into it.
  it("leaves the event table's details column room for eight characters on the smallest page", () => {
    const { columns, inset } = STYLE.events;
    const details = min.width - margin.left - margin.right - inset - columns.index - columns.time - columns.type;
    expect(details).toBeGreaterThan(8 * STYLE.events.size);
  });

  it("keeps a field's value column wider than its label on the smallest page", () => {
    expect(min.width - margin.left - margin.right - STYLE.field.labelWidth).toBeGreaterThan(STYLE.field.labelWidth);
  });

  it("fits a heading with what it keeps, the title block and the footer on the smallest page", () => {
    const body = min.height - margin.top - margin.bottom;
    const title = STYLE.title.after + STYLE.title.subtitleAfter + STYLE.title.ruleAfter;
    expect(title + STYLE.section.height + STYLE.events.keepWith).toBeLessThan(body);
    expect(STYLE.footer.ruleY).toBeLessThan(margin.bottom);
    expect(STYLE.footer.textY).toBeLessThan(STYLE.footer.ruleY);
  });

  it("falls back to a page at least as large as the smallest", () => {
    expect(fallback.width).toBeGreaterThanOrEqual(min.width);
    expect(fallback.height).toBeGreaterThanOrEqual(min.height);
    expect(Math.max(fallback.width, fallback.height)).toBeLessThanOrEqual(STYLE.page.maxSide);
  });

  it("holds colours as RGB components between 0 and 1", () => {
    for (const color of Object.values(STYLE.color)) {
      expect(color).toHaveLength(3);
      for (const component of color) expect(component >= 0 && component <= 1).toBe(true);
    }
  });
});
