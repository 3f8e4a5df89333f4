// Spreadsheets and presentations to PDF through the real local server and real LibreOffice (warm
// and one-shot paths): page counts and text checked with poppler, pictures with pdfimages, the
// input type decided by the bytes, and the page limit on a workbook that prints to many pages.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sofficeConvert } from "#test/helpers/annotate-office.ts";
import { multipartBody, solidPng } from "#test/helpers/convert-fixtures.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { buildOdp, buildOds, type Sheet } from "#test/helpers/office-suite-files.ts";
import { pdfImages, pdfPageCount, pdfText } from "#test/helpers/pdf-tools.ts";

let api: LocalApi;
let key: string;

// Three sheets: plain values, formulas with cached values, and one 40 columns wide (two pages across).
const sheets: Sheet[] = [
  {
    name: "Prices",
    rows: [
      ["Item", "Price"],
      ["Gear wheel", 3.5],
      ["Crank", 40],
    ],
  },
  {
    name: "Totals",
    rows: [
      ["Sum", { formula: "of:=SUM([Prices.B2:.B3])", value: 43.5 }],
      ["Double", { formula: "of:=[.B1]*2", value: 87 }],
    ],
  },
  { name: "Wide", rows: [Array.from({ length: 40 }, (_, i) => `Column${i + 1}`)] },
];
const slides = [{ text: "Quarterly review" }, { text: "Gear wheel sales", picture: solidPng(64, 48) }, { text: "Thank you" }];
const files: Record<string, Buffer> = {};

beforeAll(async () => {
  api = await startLocalApi("convert-sheets", { SIGNET_TABLE: "signet-convert-sheets", SIGNET_MAX_CONVERT_PAGES: "20" });
  key = await obtainKey(api, "convert-sheets");
  files.ods = buildOds(sheets);
  files.odp = buildOdp(slides);
  // Made by LibreOffice itself, as a user's files would be.
  [files.xlsx, files.xls, files.pptx, files.ppt] = await Promise.all([
    sofficeConvert(files.ods, "ods", "xlsx"),
    sofficeConvert(files.ods, "ods", "xls"),
    sofficeConvert(files.odp, "odp", "pptx"),
    sofficeConvert(files.odp, "odp", "ppt"),
  ]);
  files.csv = Buffer.from('Item,Price\n"Gear wheel, large",3.50\nCrank,40\nÜberrad,1\n');
}, 300_000);

afterAll(async () => {
  await api?.close();
});

async function convert(from: string, data: Buffer): Promise<{ status: number; body: Buffer; json?: Record<string, any> }> {
  const { body, contentType } = multipartBody([{ name: "file", fileName: `input.${from}`, data }]);
  const response = await fetch(`${api.url}/v1/convert?from=${from}`, {
    method: "POST",
    body,
    headers: { authorization: `Bearer ${key}`, "content-type": contentType },
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const json = response.headers.get("content-type")?.includes("json") ? JSON.parse(bytes.toString("utf8")) : undefined;
  return { status: response.status, body: bytes, json };
}

const flat = (text: string) => text.replace(/\s+/g, " ");

describe("POST /v1/convert: spreadsheets to PDF", () => {
  it.each(["ods", "xlsx", "xls"])("prints every sheet of a %s, formulas with their values, a wide sheet across pages", { timeout: 180_000 }, async (from) => {
    const { status, body } = await convert(from, files[from]!);
    expect(status).toBe(200);
    expect(body.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const text = flat(await pdfText(body));
    for (const value of ["Gear wheel", "3.5", "Crank", "43.5", "87", "Column1", "Column40"]) expect(text).toContain(value);
    // Prices, Totals, and the 40-column sheet on more than one page.
    expect(await pdfPageCount(body)).toBeGreaterThanOrEqual(4);
  });

  it("reads CSV as UTF-8 with commas and quotes", { timeout: 180_000 }, async () => {
    const { status, body } = await convert("csv", files.csv!);
    expect(status).toBe(200);
    const text = flat(await pdfText(body));
    for (const value of ["Gear wheel, large", "Crank", "Überrad"]) expect(text).toContain(value);
  });
});

describe("POST /v1/convert: presentations to PDF", () => {
  it.each(["odp", "pptx", "ppt"])("prints one page per slide of a %s, with its picture", { timeout: 180_000 }, async (from) => {
    const { status, body } = await convert(from, files[from]!);
    expect(status).toBe(200);
    expect(await pdfPageCount(body)).toBe(3);
    const text = flat(await pdfText(body));
    for (const slide of slides) expect(text).toContain(slide.text);
    expect((await pdfImages(body)).length).toBeGreaterThanOrEqual(1);
  });
});

describe("POST /v1/convert: what the bytes are decides", () => {
  it.each([
    ["xlsx", "pptx"],
    ["pptx", "xlsx"],
    ["ods", "odp"],
    ["xls", "ppt"],
  ])("a %s sent as from=%s is 422 INVALID_DOCUMENT", async (real, claimed) => {
    const { status, json } = await convert(claimed, files[real]!);
    expect(status).toBe(422);
    expect(json?.code).toBe("INVALID_DOCUMENT");
  });

  it("an unknown from is 400 listing the allowed values", async () => {
    const { status, json } = await convert("numbers", files.xlsx!);
    expect(status).toBe(400);
    expect(JSON.stringify(json?.details)).toContain("pptx");
  });

  it("a workbook that prints to more pages than SIGNET_MAX_CONVERT_PAGES is 413 naming the limit", { timeout: 180_000 }, async () => {
    const long = buildOds([{ name: "Long", rows: Array.from({ length: 3000 }, (_, i) => [`Row ${i}`, i]) }]);
    const { status, json } = await convert("ods", long);
    expect(status).toBe(413);
    expect(json?.message).toContain("20 pages");
  });
});

describe("POST /v1/convert: spreadsheets that would fetch", () => {
  // LibreOffice 7.4 itself refuses these without a user's consent (Err:540, "external content
  // disabled"), with Signet's profile or a plain one: this guards against a LibreOffice or a profile
  // that would not. The boundary that holds regardless is the isolated office worker.
  it("a WEBSERVICE formula is refused before LibreOffice (422 naming the cell); an external link makes no request, and the conversion answers", {
    timeout: 180_000,
  }, async () => {
    const { createServer } = await import("node:http");
    const requests: string[] = [];
    const listener = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.end("fetched");
    });
    await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
    const port = (listener.address() as { port: number }).port;
    try {
      const web = ["Web", { formula: `of:=COM.MICROSOFT.WEBSERVICE("http://127.0.0.1:${port}/webservice")`, value: Number.NaN }] as const;
      const link = ["Link", { formula: `of:=['http://127.0.0.1:${port}/book.ods'#$Sheet1.A1]`, value: Number.NaN }] as const;
      const fetching = buildOds([{ name: "Fetch", rows: [[...web], [...link]] }]);
      const linking = buildOds([{ name: "Fetch", rows: [[...link]] }]);
      for (const [from, bytes] of [
        ["ods", fetching],
        ["xlsx", await sofficeConvert(fetching, "ods", "xlsx")],
      ] as const) {
        const { status, json } = await convert(from, bytes);
        expect(status, from).toBe(422);
        expect(json?.message, from).toMatch(/has a formula in .* that uses WEBSERVICE/);
      }
      for (const [from, bytes] of [
        ["ods", linking],
        ["xlsx", await sofficeConvert(linking, "ods", "xlsx")],
      ] as const) {
        const { status, body } = await convert(from, bytes);
        expect(status, from).toBe(200);
        expect(await pdfText(body)).not.toContain("fetched");
      }
      expect(requests).toEqual([]);
    } finally {
      listener.close();
    }
  });
});
