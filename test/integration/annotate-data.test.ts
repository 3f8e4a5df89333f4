// Annotate with `data` through the real local server: the filled DOCX converted by LibreOffice and
// read back with pdftotext, the loop structure listed by /v1/annotate/fields, and the hostile sizes;
// and a Word repeating section filled with three items.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocx, inlineControl, p, readPart, repeatingSection, run } from "#test/helpers/docx-builder.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfText } from "#test/helpers/pdf-tools.ts";

let api: LocalApi;
let key: string;

beforeAll(async () => {
  api = await startLocalApi("annotate-data", { SIGNET_TABLE: "signet-annotate-data", SIGNET_CONVERSION_MODE: "oneshot" });
  key = await obtainKey(api, "annotate-data");
}, 120_000);

afterAll(async () => {
  await api?.close();
});

const post = (path: string, body: unknown) => api.postJson(path, body, key);
const document = { base64: readFileSync("examples/files/invoice.docx").toString("base64") };
const data = {
  number: "2026-0042",
  customer: { name: "Ada Lovelace", address: { city: "London" } },
  notes: ["Delivery by rail", "Fragile"],
  items: [
    { name: "Gear wheel", qty: 12, price: "3.50" },
    { name: "Crank", qty: 1, price: "40.00" },
    { name: "Column", qty: 3, price: "9.99" },
  ],
  paid: false,
};
const decode = (base64: string) => Buffer.from(base64.replace(/^data:[^,]*,/, ""), "base64");

describe("POST /v1/annotate with data over the local server", () => {
  it("renders values, loops and sections in the PDF LibreOffice makes", { timeout: 180_000 }, async () => {
    const { status, json } = await post("/v1/annotate?to=pdf", { document, fields: [], data });
    expect(status).toBe(200);
    const text = (await pdfText(decode(json.document.base64), { layout: true })).replace(/ +/g, " ");
    for (const line of ["Invoice 2026-0042", "For Ada Lovelace, London", "Note: Delivery by rail", "Note: Fragile", "Payment due within 30 days."]) {
      expect(text).toContain(line);
    }
    expect(text).toMatch(/Gear wheel 12 3\.50\s+Crank 1 40\.00\s+Column 3 9\.99/);
    expect(text).not.toContain("{{");
    expect(text).not.toContain("Paid, thank you");
  });

  it("keeps the DOCX well-formed for Word: one table row per item, styles kept", async () => {
    const { status, json } = await post("/v1/annotate", { document, fields: [], data: { ...data, paid: true } });
    expect(status).toBe(200);
    const xml = readPart(decode(json.document.base64), "word/document.xml");
    expect(xml.match(/<w:tr[ >]/g)).toHaveLength(4);
    expect(xml).toContain("Paid, thank you.");
    expect(xml).toContain('<w:sz w:val="32"/>');
  });

  it("answers 422 DATA_MISSING listing every missing path", async () => {
    const { items, customer, ...rest } = data;
    const { status, json } = await post("/v1/annotate", {
      document,
      fields: [],
      data: { ...rest, customer: { name: customer.name }, items: [items[0], { name: "Crank", qty: 1 }] },
    });
    expect(status).toBe(422);
    expect(json.code).toBe("DATA_MISSING");
    expect(json.details.map((detail: { field: string }) => detail.field).sort()).toEqual(["data.customer.address.city", "data.items[1].price"]);
  });

  it("answers 413 for a loop over 100,000 items and 400 for data nested past the JSON limit", async () => {
    const many = Array.from({ length: 100_000 }, () => ({ name: "x", qty: 1, price: "1" }));
    const big = await post("/v1/annotate", { document, fields: [], data: { ...data, items: many } });
    expect(big.status).toBe(413);
    expect(big.json.message).toContain("10000");
    let deep: unknown = "x";
    for (let i = 0; i < 40; i++) deep = { a: deep };
    const nested = await post("/v1/annotate", { document, fields: [], data: { ...data, deep } });
    expect(nested.status).toBe(400);
  });

  it("lists the tags data fills, with their loops, on /v1/annotate/fields", async () => {
    const { status, json } = await post("/v1/annotate/fields", { document });
    expect(status).toBe(200);
    expect(json.tags).toEqual([
      { name: "number", kind: "value" },
      { name: "customer.name", kind: "value" },
      { name: "customer.address.city", kind: "value" },
      { name: "notes", kind: "section", children: [{ name: ".", kind: "value" }] },
      {
        name: "items",
        kind: "section",
        children: [
          { name: "name", kind: "value" },
          { name: "qty", kind: "value" },
          { name: "price", kind: "value" },
        ],
      },
      { name: "paid", kind: "section", children: [] },
      { name: "paid", kind: "inverted", children: [] },
    ]);
  });
});

describe("a Word repeating section over the local server", () => {
  it("repeats the item three times in the PDF LibreOffice makes", { timeout: 180_000 }, async () => {
    const template = buildDocx({
      body: repeatingSection({ tag: "parties" }, p(run("Party: ") + inlineControl({ tag: "name" }) + run(" as ") + inlineControl({ tag: "role" }))),
    });
    const { status, json } = await post("/v1/annotate?to=pdf", {
      document: { base64: template.toString("base64") },
      fields: [
        {
          id: "parties",
          type: "repeat",
          value: [
            { name: "Ada Lovelace", role: "buyer" },
            { name: "Charles Babbage", role: "seller" },
            { name: "Luigi Menabrea", role: "witness" },
          ],
        },
      ],
    });
    expect(status).toBe(200);
    const text = (await pdfText(decode(json.document.base64))).replace(/ +/g, " ");
    expect(text).toMatch(/Party: Ada Lovelace as buyer\s+Party: Charles Babbage as seller\s+Party: Luigi Menabrea as witness/);
    expect(text).not.toContain("Click here");
  });
});
