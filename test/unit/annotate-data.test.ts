import { describe, expect, it } from "vitest";
import { describeFields, fillTemplate, type AnnotateLimits, type Field } from "#domain/docx/annotate.ts";
import type { TemplateData } from "#domain/docx/data.ts";
import { annotateLimits, noFetch } from "#test/helpers/annotate-limits.ts";
import { buildDocx, inlineControl, p, readPart, run, table } from "#test/helpers/docx-builder.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";

const limits = annotateLimits;
const fill = (docx: Buffer, data: TemplateData, fields: Field[] = [], overrides: Partial<AnnotateLimits> = {}) =>
  fillTemplate(docx, fields, { fetcher: noFetch, limits: { ...limits, ...overrides } }, data);

/** text is the visible text of a part, one line per paragraph. */
function text(docx: Uint8Array, part = "word/document.xml"): string {
  return readPart(docx, part)
    .split(/<\/w:p>/)
    .map((paragraph) => [...paragraph.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join(""))
    .map((line) => line.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&amp;", "&"))
    .filter((line) => line !== "")
    .join("\n");
}

const invoice = buildDocx({
  header: p(run("{{company.name}}")),
  body:
    p(run("Dear {{customer.name}} of {{customer.address.city}},")) +
    p(run("{{#items}}")) +
    p(run("- {{name}}: {{qty}} for {{customer.name}}")) +
    p(run("{{#parts}}  part {{label}} of {{name}}{{/parts}}")) +
    p(run("{{/items}}")) +
    table([
      ["Item", "Qty"],
      ["{{#items}}{{name}}", "{{qty}}{{/items}}"],
    ]) +
    p(run("{{#paid}}Paid, thank you.{{/paid}}{{^paid}}Payment due.{{/paid}}")),
});

const data = {
  company: { name: "Analytical Engines Ltd" },
  customer: { name: "Ada", address: { city: "London" } },
  items: [
    { name: "Widget", qty: 2, parts: [{ label: "A" }, { label: "B" }] },
    { name: "Gadget", qty: 1, parts: [] },
  ],
  paid: false,
};

describe("annotate with data: values, paths, loops and sections", () => {
  it("repeats paragraphs and table rows, nests loops, reads outer scopes and decides sections", async () => {
    const out = await fill(invoice, data);
    expect(text(out)).toBe(
      [
        "Dear Ada of London,",
        "- Widget: 2 for Ada",
        "  part A of Widget  part B of Widget", // a loop inside one paragraph repeats inline
        "- Gadget: 1 for Ada",
        "Item",
        "Qty",
        "Widget",
        "2",
        "Gadget",
        "1",
        "Payment due.",
      ].join("\n"),
    );
    expect(text(out, "word/header1.xml")).toBe("Analytical Engines Ltd");
    // The loop rows are real table rows: three rows in all.
    expect(readPart(out, "word/document.xml").match(/<w:tr[ >]/g)).toHaveLength(3);
    expect(text(await fill(invoice, { ...data, paid: true }))).toContain("Paid, thank you.");
  });

  it("lists every missing path, inside loops with their item index", async () => {
    const { items, ...rest } = data;
    const error = await expectSignetError(
      fill(invoice, { ...rest, customer: { name: "Ada" }, items: [items[0], { name: "Gadget", parts: [] }], paid: undefined as unknown as boolean }),
      "DATA_MISSING",
    );
    expect(error.details?.map((detail) => detail.field)).toEqual(expect.arrayContaining(["data.customer.address.city", "data.items[1].qty", "data.paid"]));
  });

  it("writes values as text: markup and braces in data stay characters", async () => {
    const docx = buildDocx({ body: p(run("{{a}} {{b}}")) });
    const out = await fill(docx, { a: "<w:p>{{b}}</w:p> & co", b: 3 });
    expect(text(out)).toBe("<w:p>{{b}}</w:p> & co 3");
    expect(readPart(out, "word/document.xml")).toContain("&lt;w:p&gt;{{b}}&lt;/w:p&gt; &amp; co");
  });

  it("refuses an object where text goes, and expressions are plain (missing) names", async () => {
    const docx = buildDocx({ body: p(run("{{customer}} {{a + b}} {{constructor}}")) });
    const error = await expectSignetError(fill(docx, { customer: { name: "x" }, a: 1, b: 2 }), "VALIDATION_ERROR");
    expect(error.details?.[0]?.field).toBe("data.customer");
    const missing = await expectSignetError(fill(buildDocx({ body: p(run("{{a + b}} {{constructor}} {{__proto__}}")) }), { a: 1, b: 2 }), "DATA_MISSING");
    expect(missing.details?.map((detail) => detail.field)).toEqual(["data.a + b", "data.constructor", "data.__proto__"]);
  });

  it("refuses raw XML tags", async () => {
    const error = await expectSignetError(fill(buildDocx({ body: p(run("{{@raw}}")) }), { raw: "<w:p/>" }), "INVALID_DOCUMENT");
    expect(error.message).toContain("{{@raw}}");
  });

  it("bounds loop iterations, nested loops counted per outer item, before building anything", async () => {
    const many = { rows: Array.from({ length: 100_000 }, (_, i) => ({ n: i })) };
    const rows = buildDocx({ body: p(run("{{#rows}}{{n}}{{/rows}}")) });
    const error = await expectSignetError(fill(rows, many), "PAYLOAD_TOO_LARGE");
    expect(error.message).toContain("10000");
    // 200 items looped inside themselves: 40,200 iterations from 200 array elements.
    const square = buildDocx({ body: p(run("{{#rows}}{{#rows}}{{n}}{{/rows}}{{/rows}}")) });
    await expectSignetError(fill(square, { rows: many.rows.slice(0, 200) }), "PAYLOAD_TOO_LARGE");
    await expectSignetError(fill(rows, { rows: many.rows.slice(0, 50) }, [], { maxDataOutputChars: 1000 }), "PAYLOAD_TOO_LARGE");
  });

  it("fills a 2,000-row loop", async () => {
    const rows = Array.from({ length: 2000 }, (_, i) => ({ name: `Item ${i}`, qty: i }));
    const out = await fill(buildDocx({ body: table([["{{#rows}}{{name}}", "{{qty}}{{/rows}}"]]) }), { rows });
    expect(readPart(out, "word/document.xml").match(/<w:tr[ >]/g)).toHaveLength(2000);
    expect(text(out)).toContain("Item 1999");
  });

  it("takes text fields that name a placeholder into the data, and fills controls as before", async () => {
    const docx = buildDocx({ body: p(run("{{greeting}}, {{name}}")) + p(inlineControl({ tag: "city" })) });
    const out = await fill(docx, { name: "Ada" }, [
      { id: "greeting", type: "text", value: "Hello" },
      { id: "city", type: "text", value: "London" },
    ]);
    expect(text(out)).toContain("Hello, Ada");
    expect(text(out)).toContain("London");
  });
});

describe("POST /v1/annotate/fields: the tags data fills", () => {
  it("lists tags with their loop structure", async () => {
    const { tags } = await describeFields(invoice, limits);
    expect(tags).toEqual(
      expect.arrayContaining([
        { name: "company.name", kind: "value" },
        { name: "customer.name", kind: "value" },
        {
          name: "items",
          kind: "section",
          children: expect.arrayContaining([
            { name: "name", kind: "value" },
            {
              name: "parts",
              kind: "section",
              children: [
                { name: "label", kind: "value" },
                { name: "name", kind: "value" },
              ],
            },
          ]),
        },
        { name: "paid", kind: "inverted", children: [] },
      ]),
    );
  });
});
