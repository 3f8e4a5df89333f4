import { describe, expect, it } from "vitest";
import { describeFields, fillTemplate, type Field } from "#domain/docx/annotate.ts";
import { blockControl, buildDocx, checkboxControl, inlineControl, p, readPart, run, table } from "#test/helpers/docx-builder.ts";
import { dataUri, makePng } from "#test/helpers/annotate-images.ts";
import { libreOfficeTemplateDocx, sofficeConvert } from "#test/helpers/annotate-office.ts";
import { pdfImages, pdfPageCount, pdfText } from "#test/helpers/pdf-tools.ts";
import { annotateLimits, noFetch } from "#test/helpers/annotate-limits.ts";

// Filled documents are checked from the outside: LibreOffice renders them to PDF, poppler reads it.
const fill = (docx: Buffer, fields: Field[]) => fillTemplate(docx, fields, { fetcher: noFetch, limits: annotateLimits });

describe("a filled template rendered by LibreOffice", () => {
  it("shows every value, no placeholder text, the image at its size, the rows and the checkbox", { timeout: 180_000 }, async () => {
    const template = buildDocx({
      header: p(run("Header: ") + inlineControl({ tag: "company", placeholder: "Company placeholder" })),
      footer: p(run("Footer ref ") + inlineControl({ tag: JSON.stringify({ fieldId: "ref", fieldTypeShort: "text" }), placeholder: "Ref placeholder" })),
      body:
        p(run("Customer: ") + inlineControl({ tag: "customer", placeholder: "Customer placeholder", rPr: "<w:b/>" })) +
        p(run("Billing: ") + inlineControl({ tag: JSON.stringify({ group: "addr" }), placeholder: "Addr placeholder one" })) +
        p(run("Shipping: ") + inlineControl({ tag: JSON.stringify({ group: "addr" }), placeholder: "Addr placeholder two" })) +
        blockControl({ tag: "terms" }, p(run("Terms placeholder"))) +
        p(run("Agreed: ") + checkboxControl({ tag: "agree" })) +
        blockControl(
          { tag: "items" },
          table([
            ["Item", "Qty"],
            ["Row template", "0"],
          ]),
        ) +
        p(run("Logo: ") + inlineControl({ tag: "logo", placeholder: "Logo placeholder" })) +
        p(run("Greeting {{salutation}} end")),
    });
    const fields: Field[] = [
      { id: "company", type: "text", value: "Analytical Engines Ltd" },
      { id: "ref", type: "text", value: "REF-2024-77" },
      { id: "customer", type: "text", value: "Ada Lovelace" },
      { group: "addr", type: "text", value: "12 St James Square" },
      { id: "terms", type: "text", value: "Payment within 30 days\nNo refunds" },
      { id: "agree", type: "checkbox", value: "true" },
      {
        id: "items",
        type: "table",
        value: [
          ["Gear wheel", "12"],
          ["Punch card", "400"],
          ["Steam valve", "3"],
        ],
        options: { copyRowStyle: true },
      },
      { id: "logo", type: "image", value: dataUri(makePng(240, 120)), options: { dimensions: { width: 120 } } },
      { id: "salutation", type: "text", value: "Countess" },
    ];
    const filled = await fill(template, fields);
    const body = readPart(filled, "word/document.xml");
    expect(body).toContain(`<wp:extent cx="${120 * 9525}" cy="${60 * 9525}"/>`);
    expect(body.match(/<w:tr>/g)).toHaveLength(5);

    const pdf = await sofficeConvert(filled, "docx", "pdf");
    expect(await pdfPageCount(pdf)).toBe(1);
    const text = await pdfText(pdf, { layout: true });
    for (const value of [
      "Analytical Engines Ltd",
      "REF-2024-77",
      "Ada Lovelace",
      "Payment within 30 days",
      "No refunds",
      "Gear wheel",
      "Punch card",
      "Steam valve",
      "400",
      "Greeting Countess end",
    ]) {
      expect(text).toContain(value);
    }
    expect(text.match(/12 St James Square/g)).toHaveLength(2);
    expect(text).not.toMatch(/placeholder|\{\{/);
    expect(text).toContain("\u2612");
    expect(text).not.toContain("\u2610");
    // 240 px drawn 120 CSS px (1.25 in) wide: 192 pixels per inch on the page.
    expect(await pdfImages(pdf)).toEqual([{ width: 240, height: 120, ppi: 192 }]);
  });

  it("fills a template LibreOffice saved itself and the result opens again", { timeout: 180_000 }, async () => {
    const template = await libreOfficeTemplateDocx();
    const { fields, placeholders } = await describeFields(template, annotateLimits);
    expect(fields.map((field) => field.kind)).toEqual(expect.arrayContaining(["text", "checkbox"]));
    expect(placeholders).toEqual(expect.arrayContaining(["contractNo", "client", "date", "service", "fee", "notAField"]));

    const filled = await fill(template, [
      { id: "contractNo", type: "text", value: "C-1843" },
      { id: "client", type: "text", value: "Babbage & Co" },
      { id: "date", type: "text", value: "10 December 1843" },
      { id: "service", type: "text", value: "Difference engine upkeep" },
      { id: "fee", type: "text", value: "£ 1,200" },
    ]);
    const pdf = await sofficeConvert(filled, "docx", "pdf");
    expect(await pdfPageCount(pdf)).toBe(1);
    const text = await pdfText(pdf, { layout: true });
    for (const value of [
      "Contract C-1843",
      "Prepared for Babbage & Co",
      "made with Babbage & Co on 10 December 1843",
      "Difference engine upkeep",
      "£ 1,200",
      "Untouched: {{notAField}}",
    ]) {
      expect(text).toContain(value);
    }
  });
});
