import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockControl, buildDocx, checkboxControl, inlineControl, p, readPart, run, table } from "#test/helpers/docx-builder.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfPageCount, pdfText } from "#test/helpers/pdf-tools.ts";

let api: LocalApi;
let key: string;

beforeAll(async () => {
  // Config is read at import: startLocalApi sets the environment before it imports the server.
  api = await startLocalApi("annotate-server", { SIGNET_TABLE: "signet-annotate-server", SIGNET_MAX_FIELDS: "6", SIGNET_CONVERSION_MODE: "oneshot" });
  key = await obtainKey(api, "annotate");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const post = (path: string, body: unknown) => api.postJson(path, body, key);

const template = buildDocx({
  header: p(run("Header ") + inlineControl({ tag: "company" })),
  body:
    p(run("Name: ") + inlineControl({ tag: JSON.stringify({ fieldId: "name", fieldTypeShort: "text" }), id: "501" })) +
    p(checkboxControl({ tag: "agree" })) +
    blockControl({ tag: "items" }, table([["Item", "Qty"]])),
});
const document = { base64: template.toString("base64") };
const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
const placeholderDocument = { base64: buildDocx({ body: p(run("Date: {{date}}")) }).toString("base64") };

describe("POST /v1/annotate over the local server", () => {
  it("answers the filled DOCX as a data URI", async () => {
    const { status, json } = await post("/v1/annotate", { document, fields: [{ id: "name", type: "text", value: "Grace Hopper" }] });
    expect(status).toBe(200);
    expect(json.document.contentType).toBe(DOCX);
    const prefix = `data:${DOCX};base64,`;
    expect(json.document.base64.startsWith(prefix)).toBe(true);
    const docx = Buffer.from(json.document.base64.slice(prefix.length), "base64");
    expect(readPart(docx, "word/document.xml")).toContain("Grace Hopper");
  });

  it("answers a PDF with to=pdf through the LibreOffice converter", { timeout: 180_000 }, async () => {
    const { status, json } = await post("/v1/annotate?to=pdf", {
      document,
      fields: [
        { id: "name", type: "text", value: "Grace Hopper" },
        { id: "company", type: "text", value: "Eckert-Mauchly" },
        { id: "agree", type: "checkbox", value: true },
        { id: "items", type: "table", value: [["COBOL manual", "2"]] },
      ],
    });
    expect(status).toBe(200);
    expect(json.document.contentType).toBe("application/pdf");
    const pdf = Buffer.from(json.document.base64.replace(/^data:application\/pdf;base64,/, ""), "base64");
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(await pdfPageCount(pdf)).toBe(1);
    const text = await pdfText(pdf, { layout: true });
    for (const value of ["Grace Hopper", "Header Eckert-Mauchly", "COBOL manual", "\u2612"]) expect(text).toContain(value);
    expect(text).not.toContain("Click here");
  });

  it("keeps tab and newline in text, table cells and placeholders (w:tab, w:br)", async () => {
    const fields = [
      { id: "name", type: "text", value: "A\tB\nC" },
      { id: "items", type: "table", value: [["x\ty", "1\r\n2"]] },
    ];
    const { status, json } = await post("/v1/annotate", { document, fields });
    expect(status).toBe(200);
    const xml = readPart(Buffer.from(json.document.base64.replace(/^data:[^,]*,/, ""), "base64"), "word/document.xml");
    expect(xml).toMatch(/>A<\/w:t><w:tab\/><w:t xml:space="preserve">B<\/w:t><w:br\/><w:t xml:space="preserve">C</);
    expect(xml).toMatch(/>x<\/w:t><w:tab\/><w:t xml:space="preserve">y</);
    expect(xml).toMatch(/>1<\/w:t><w:br\/><w:t xml:space="preserve">2</);
    const placeholder = await post("/v1/annotate", { document: placeholderDocument, fields: [{ id: "date", type: "text", value: "10\tMay" }] });
    expect(placeholder.status).toBe(200);
  });

  // One row per failure: request, expected status and code, and what the details say.
  it.each([
    {
      name: "unmatched ids and groups, all listed",
      body: {
        document,
        fields: [
          { id: "missing", type: "text", value: "x" },
          { group: "nobody", type: "text", value: "y" },
        ],
      },
      status: 422,
      code: "FIELD_NOT_FOUND",
      details: [
        { field: "fields.0", issue: expect.stringContaining('"missing"') },
        { field: "fields.1", issue: expect.stringContaining('"nobody"') },
      ],
    },
    {
      name: "a table into an inline control",
      body: { document, fields: [{ id: "name", type: "table", value: [["a"]] }] },
      status: 422,
      code: "FIELD_TYPE_MISMATCH",
      details: [{ field: "fields.0", issue: expect.stringContaining("inline text control") }],
    },
    {
      name: "a table value that is not rows of strings",
      body: { document, fields: [{ id: "items", type: "table", value: "Widget, 2" }] },
      status: 400,
      code: "VALIDATION_ERROR",
      details: [{ field: "fields.0.value", issue: expect.stringContaining("table an array of rows") }],
    },
    {
      name: "a table row with cells that are not strings",
      body: { document, fields: [{ id: "items", type: "table", value: [["Widget", 2]] }] },
      status: 400,
      code: "VALIDATION_ERROR",
      details: expect.arrayContaining([expect.objectContaining({ field: expect.stringMatching(/^fields\.0\.value/) })]),
    },
    {
      name: "an image that is not an image",
      body: { document, fields: [{ id: "name", type: "image", value: "data:image/png;base64,SGVsbG8gd29ybGQ=" }] },
      status: 422,
      code: "INVALID_IMAGE",
      details: [{ field: "fields.0.value", issue: expect.stringContaining("not a PNG, JPEG, GIF, WebP or SVG") }],
    },
    {
      name: "control characters in a text value",
      body: { document, fields: [{ id: "name", type: "text", value: "A\u0001\u000bB" }] },
      status: 400,
      code: "VALIDATION_ERROR",
      details: [{ field: "fields.0.value", issue: expect.stringContaining("U+0001 at position 1") }],
    },
    {
      name: "control characters in a {{placeholder}} value (not blamed on the template)",
      body: { document: placeholderDocument, fields: [{ id: "date", type: "text", value: "10\u0008 May" }] },
      status: 400,
      code: "VALIDATION_ERROR",
      details: [{ field: "fields.0.value", issue: expect.stringContaining("U+0008") }],
    },
    {
      name: "U+FFFF and an unpaired surrogate in table cells",
      body: {
        document,
        fields: [
          {
            id: "items",
            type: "table",
            value: [
              ["ok", "bad\uFFFF"],
              ["\uD800x", "fine"],
            ],
          },
        ],
      },
      status: 400,
      code: "VALIDATION_ERROR",
      details: [
        { field: "fields.0.value.0.1", issue: expect.stringContaining("U+FFFF at position 3") },
        { field: "fields.0.value.1.0", issue: expect.stringContaining("U+D800 at position 0") },
      ],
    },
    {
      name: "more fields than SIGNET_MAX_FIELDS",
      body: { document, fields: Array.from({ length: 7 }, () => ({ id: "name", type: "text", value: "x" })) },
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
      details: [{ field: "fields", issue: "7 items, at most 6" }],
    },
    {
      name: "a PDF instead of a template",
      body: { document: { base64: Buffer.from("%PDF-1.7\n%%EOF").toString("base64") }, fields: [] },
      status: 422,
      code: "INVALID_DOCUMENT",
      details: undefined,
    },
  ])("refuses $name", async ({ body, status, code, details }) => {
    const response = await post("/v1/annotate", body);
    expect(response.status).toBe(status);
    expect(response.json).toMatchObject({ code, requestId: expect.any(String), message: expect.any(String) });
    expect(response.json.details).toEqual(details);
  });
});

describe("POST /v1/annotate/fields over the local server", () => {
  it("lists the controls with their ids, group, kind and location", async () => {
    const { status, json } = await post("/v1/annotate/fields", { document });
    expect(status).toBe(200);
    expect(json).toEqual({
      fields: [
        { ids: ["name", "501"], group: null, alias: null, kind: "text", location: { part: "word/document.xml", index: 0 } },
        { ids: ["agree"], group: null, alias: null, kind: "checkbox", location: { part: "word/document.xml", index: 1 } },
        { ids: ["items"], group: null, alias: null, kind: "table", location: { part: "word/document.xml", index: 2 } },
        { ids: ["company"], group: null, alias: null, kind: "text", location: { part: "word/header1.xml", index: 0 } },
      ],
      placeholders: [],
      tags: [],
    });
  });
});
