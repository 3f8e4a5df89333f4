import { describe, expect, it } from "vitest";
import { describeFields, fillTemplate, type AnnotateLimits, type Field } from "#domain/docx/annotate.ts";
import { annotateLimits, noFetch } from "#test/helpers/annotate-limits.ts";
import { blockControl, buildDocx, inlineControl, p, readPart, repeatingSection, run, table } from "#test/helpers/docx-builder.ts";
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
  // 20 sections x 10,000 items (a 3 MB request) made 200,000 copies when each field was counted alone.
  const twenty = buildDocx({
    body:
      Array.from({ length: 20 }, (_, i) => repeatingSection({ tag: `s${i}` }, p(run("Name: ") + inlineControl({ tag: "name" })))).join("") +
      blockControl({ tag: "grid" }, table([["a", "b"]])) +
      p(run("{{#rows}}{{v}}{{/rows}}")),
  });
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `item ${i}` }));

  it("counts items per request: repeat fields, table rows and data loops share one budget, checked before any copy is made", async () => {
    const each = Array.from({ length: 20 }, (_, i): Field => ({ id: `s${i}`, type: "repeat", value: items(10) }));
    const limited = { maxDataIterations: 200 };
    const over = await expectSignetError(fill(twenty, each, { maxDataIterations: 199 }), "PAYLOAD_TOO_LARGE");
    expect(over.message).toBe(
      "fields.19 repeats its section too often together with the request's other repeat fields and data (10 items bring the request's copies and loop iterations to 200, at most 199); send fewer items or split the document.",
    );
    expect(over.details).toEqual([{ field: "fields.19.value", issue: "10 items bring the request's copies and loop iterations to 200, at most 199" }]);
    await fill(twenty, each, limited);
    // Table rows count too, and so do the loop iterations of data.
    const rows: Field = { id: "grid", type: "table", value: [["1", "2"]] };
    await expectSignetError(fill(twenty, [...each, rows], limited), "PAYLOAD_TOO_LARGE");
    const data = fillTemplate(twenty, each, { fetcher: noFetch, limits: { ...limits, ...limited } }, { rows: [{ v: "x" }] });
    expect((await expectSignetError(data, "PAYLOAD_TOO_LARGE")).details?.[0]?.issue).toBe(
      "10 items bring the request's copies and loop iterations to 201, at most 200",
    );
    // Characters are counted per request as well.
    // (an item is some 400 characters: 10 copies fit in 60,000, 200 do not.)
    const chars = await expectSignetError(fill(twenty, each, { maxDataOutputChars: 60_000 }), "PAYLOAD_TOO_LARGE");
    expect(chars.details?.[0]?.issue).toMatch(/^10 copies of a \d+-character item bring the request's XML to \d+ characters, at most 60000$/);
  });

  it("refuses a second repeat field on a filled section (400 naming both), and repeats a section whose inner section was filled first", async () => {
    const twice = await expectSignetError(
      fill(twenty, [
        { id: "s3", type: "repeat", value: items(1) },
        { id: "s3", type: "repeat", value: items(2) },
      ]),
      "VALIDATION_ERROR",
    );
    expect(twice.details).toEqual([{ field: "fields.1", issue: "fills the repeating section fields.0 already fills (word/document.xml, control 9)" }]);
    // An inner section filled before its outer one is copied with it (its filled runs used to break the copy: a 500).
    const nested = buildDocx({
      body: repeatingSection({ tag: "outer" }, p(run("Group")) + repeatingSection({ tag: "inner" }, p(inlineControl({ tag: "name" })))),
    });
    const out = await fill(nested, [
      { id: "inner", type: "repeat", value: items(2) },
      { id: "outer", type: "repeat", value: [{}, {}, {}] },
    ]);
    expect(texts(readPart(out, "word/document.xml"))).toBe("Group|item 0|item 1|Group|item 0|item 1|Group|item 0|item 1");
  });

  it("hands the event loop back while it copies", async () => {
    let turns = 0;
    const count = () => {
      turns++;
      if (!done) setImmediate(count);
    };
    let done = false;
    setImmediate(count);
    await fill(twenty, [{ id: "s0", type: "repeat", value: items(2000) }]);
    done = true;
    // 2,000 copies take far longer than one 10 ms turn; other callbacks ran between them.
    expect(turns).toBeGreaterThan(2);
  });
});
