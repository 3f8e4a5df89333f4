import { describe, expect, it } from "vitest";
import { describeFields, fillTemplate, type AnnotateLimits, type Field } from "#domain/docx/annotate.ts";
import { annotateLimits, noFetch } from "#test/helpers/annotate-limits.ts";
import { buildDocx, inlineControl, p, readPart, repeatingSection, run } from "#test/helpers/docx-builder.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";

const limits = annotateLimits;
const fill = (docx: Buffer, fields: Field[], overrides: Partial<AnnotateLimits> = {}) =>
  fillTemplate(docx, fields, { fetcher: noFetch, limits: { ...limits, ...overrides } });

const texts = (xml: string) => [...xml.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((m) => m[1]).join("|");
const row = (cells: string[]) => `<w:tr>${cells.map((cell) => `<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr>${p(cell)}</w:tc>`).join("")}</w:tr>`;

// Word's own shapes: a section of paragraphs in the body, one of table rows, and one in the header.
const template = buildDocx({
  header: repeatingSection({ tag: "owners", id: "70" }, p(run("Owner: ") + inlineControl({ tag: "owner", id: "71" }))),
  body:
    p(run("Parties")) +
    repeatingSection(
      { tag: "parties", id: "10", alias: "Parties" },
      p(run("Name: ", "<w:b/>") + inlineControl({ tag: "name", id: "11", rPr: "<w:i/>" }) + run(", role ") + inlineControl({ tag: "role", id: "12" })),
    ) +
    `<w:tbl><w:tblGrid><w:gridCol w:w="3000"/><w:gridCol w:w="3000"/></w:tblGrid>${row([run("Item"), run("Qty")])}${repeatingSection(
      { tag: "lines", id: "20" },
      row([inlineControl({ tag: "item", id: "21" }), inlineControl({ tag: JSON.stringify({ fieldId: "qty" }), id: "22" })]),
    )}</w:tbl>`,
});

describe("Word repeating sections (w15:repeatingSection)", () => {
  it("makes one item per element, filling inner controls by tag, SuperDoc id or w:id, in body, table rows and header", async () => {
    const out = await fill(template, [
      {
        id: "parties",
        type: "repeat",
        value: [
          { name: "Ada Lovelace", role: "buyer" },
          { name: "Charles Babbage", role: "seller" },
          { name: "Luigi Menabrea", "12": "witness" },
        ],
      },
      {
        id: "lines",
        type: "repeat",
        value: [
          { item: "Gear wheel", qty: "12" },
          { item: "Crank", qty: "1" },
          { item: "Column", qty: "3" },
        ],
      },
      { id: "owners", type: "repeat", value: [{ owner: "A" }, { owner: "B" }] },
    ]);
    const body = readPart(out, "word/document.xml");
    expect(texts(body)).toBe(
      [
        "Parties",
        ...["Ada Lovelace|, role |buyer", "Charles Babbage|, role |seller", "Luigi Menabrea|, role |witness"].map((t) => `Name: |${t}`),
        "Item|Qty",
        "Gear wheel|12|Crank|1|Column|3",
      ].join("|"),
    );
    expect(body.match(/<w15:repeatingSectionItem\/>/g)).toHaveLength(6);
    expect(body.match(/<w:tr>/g)).toHaveLength(4);
    // The item's formatting is kept (the bold label, the italic value without the placeholder style).
    expect(body.match(/<w:b\/>/g)).toHaveLength(3);
    expect(body).not.toContain("PlaceholderText");
    // Ids stay unique: only the sections' own w:id values remain.
    expect(body.match(/<w:id w:val="[^"]+"\/>/g)).toEqual(['<w:id w:val="10"/>', '<w:id w:val="20"/>']);
    expect(texts(readPart(out, "word/header1.xml"))).toBe("Owner: |A|Owner: |B");
  });

  it("is listed as kind repeat, and refuses unknown inner ids and a text value", async () => {
    const { fields } = await describeFields(template, limits);
    expect(fields.filter((field) => field.kind === "repeat").map((field) => field.ids)).toEqual([
      ["10", "parties"],
      ["20", "lines"],
      ["70", "owners"],
    ]);
    const unknown = await expectSignetError(fill(template, [{ id: "parties", type: "repeat", value: [{ name: "x", nmae: "y" }] }]), "FIELD_NOT_FOUND");
    expect(unknown.details).toEqual([{ field: "fields.0.value.0.nmae", issue: "matches no control inside the repeating section's item" }]);
    await expectSignetError(fill(template, [{ id: "parties", type: "text", value: "x" }]), "FIELD_TYPE_MISMATCH");
    await expectSignetError(fill(template, [{ id: "name", type: "repeat", value: [] }]), "FIELD_TYPE_MISMATCH");
  });

  it("bounds the number of items", async () => {
    const many = Array.from({ length: 10_001 }, () => ({ name: "x" }));
    const error = await expectSignetError(fill(template, [{ id: "parties", type: "repeat", value: many }]), "PAYLOAD_TOO_LARGE");
    expect(error.details?.[0]?.issue).toBe("10001 items, at most 10000");
    const zero = await fill(template, [{ id: "parties", type: "repeat", value: [] }]);
    expect(readPart(zero, "word/document.xml")).not.toContain("Name: ");
  });
});
