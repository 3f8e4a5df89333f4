import { describe, expect, it } from "vitest";
import { describeFields, fillTemplate } from "#domain/docx/annotate.ts";
import { TagTally } from "#domain/docx/template-tags.ts";
import { annotateLimits, noFetch } from "#test/helpers/annotate-limits.ts";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";

const tally = (...pieces: string[]) => {
  const counter = new TagTally();
  for (const piece of pieces) counter.feed(piece);
  return counter.count;
};
const nested = (n: number) => `${"{{#a}}".repeat(n)}x${"{{/a}}".repeat(n)}`;

describe("TagTally", () => {
  it.each([
    { name: "plain tags", pieces: ["{{a}} and {{ b.c }}"], expected: { tags: 2, maxDepth: 0 } },
    { name: "a loop, an inverted section, a paragraph loop", pieces: ["{{#a}}{{^b}}{{-w:p c}}{{/c}}{{/b}}{{/a}}"], expected: { tags: 6, maxDepth: 3 } },
    { name: "sections one after another", pieces: ["{{#a}}{{/a}}{{#b}}{{/b}}"], expected: { tags: 4, maxDepth: 1 } },
    { name: "tags cut across runs", pieces: ["{", "{", " ", "#a}", "}{{#", "b}}{{/b}", "}"], expected: { tags: 3, maxDepth: 2 } },
    { name: "single braces", pieces: ["{a} }} {", "x{ {{b}}"], expected: { tags: 1, maxDepth: 0 } },
    { name: "more closings than openings", pieces: ["{{/a}}{{/a}}{{#b}}"], expected: { tags: 3, maxDepth: 1 } },
  ])("counts $name", ({ pieces, expected }) => expect(tally(...pieces)).toEqual(expected));
});

describe("template limits, checked before docxtemplater compiles", () => {
  // A 1.8 KB DOCX: docxtemplater's compile grows with the square of the depth (20,000 never finished).
  const bomb = buildDocx({ body: p(run(nested(20_000))) });

  it("refuses sections nested deeper than maxTemplateDepth on /fields and with data (413, naming the limit)", async () => {
    expect(bomb.length).toBeLessThan(2500);
    const fields = await expectSignetError(describeFields(bomb, annotateLimits), "PAYLOAD_TOO_LARGE");
    expect(fields.message).toBe(
      "The template nests {{#sections}} 20000 deep; the limit is 32 (SIGNET_MAX_TEMPLATE_DEPTH). Nest fewer sections inside one another.",
    );
    expect(fields.details).toEqual([{ field: "document", issue: "sections nested 20000 deep, at most 32" }]);
    await expectSignetError(fillTemplate(bomb, [], { fetcher: noFetch, limits: annotateLimits }, { a: true }), "PAYLOAD_TOO_LARGE");
    // At the limit the template is read and filled.
    const deepest = buildDocx({ body: p(run(nested(4))) });
    const limits = { ...annotateLimits, maxTemplateDepth: 4 };
    expect((await describeFields(deepest, limits)).tags).toHaveLength(1);
    const over = await expectSignetError(describeFields(buildDocx({ body: p(run(nested(5))) }), limits), "PAYLOAD_TOO_LARGE");
    expect(over.details).toEqual([{ field: "document", issue: "sections nested 5 deep, at most 4" }]);
  });

  it("refuses more than maxTemplateTags tags across all parts", async () => {
    const docx = buildDocx({ body: p(run("{{a}}".repeat(6))), header: p(run("{{b}}{{c}}")) });
    const limits = { ...annotateLimits, maxTemplateTags: 7 };
    const error = await expectSignetError(describeFields(docx, limits), "PAYLOAD_TOO_LARGE");
    expect(error.message).toBe("The template has 8 {{tags}}; the limit is 7 (SIGNET_MAX_TEMPLATE_TAGS). Use fewer tags or split the template.");
    await expectSignetError(fillTemplate(docx, [], { fetcher: noFetch, limits }, { a: "1", b: "2", c: "3" }), "PAYLOAD_TOO_LARGE");
    await expect(describeFields(docx, { ...limits, maxTemplateTags: 8 })).resolves.toMatchObject({ placeholders: ["a", "b", "c"] });
    // Without data, {{placeholders}} are plain names docxtemplater never compiles as sections: no tag limit.
    await expect(fillTemplate(docx, [{ id: "a", type: "text", value: "x" }], { fetcher: noFetch, limits })).resolves.toBeInstanceOf(Buffer);
  });
});
