// SVG and WebP values through the real local server: the filled template
// converted by LibreOffice and its pictures listed by poppler's pdfimages; Word's SVG structure in
// the DOCX; and the hostile variants (huge declared sizes, document types, references out of the
// SVG watched by a loopback listener, garbage).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildDocx, inlineControl, p, partNames, readPart, readPartBytes, run } from "#test/helpers/docx-builder.ts";
import { dataUri, makePng, makeSvg, makeWebp, makeWebpHeader } from "#test/helpers/annotate-images.ts";
import { startFixtureServer, type FixtureServer } from "#test/helpers/http-fixture-server.ts";
import { obtainKey, startLocalApi, type LocalApi } from "#test/helpers/local-api.ts";
import { pdfImageRows, pdfText } from "#test/helpers/pdf-tools.ts";

let api: LocalApi;
let key: string;
let listener: FixtureServer;
const heard: string[] = [];

beforeAll(async () => {
  listener = await startFixtureServer((req, res) => {
    heard.push(`${req.method} ${req.url}`);
    res.writeHead(200, { "content-type": "image/png" }).end(makePng(4, 4));
  });
  api = await startLocalApi("annotate-pictures", { SIGNET_TABLE: "signet-annotate-pictures", SIGNET_CONVERSION_MODE: "oneshot" });
  key = await obtainKey(api, "annotate-pictures");
}, 120_000);

afterAll(async () => {
  await api?.close();
  await listener?.close();
});

const template = buildDocx({
  body:
    p(run("Signed: ") + inlineControl({ tag: "signature", placeholder: "Sign here" })) +
    p(run("Logo: ") + inlineControl({ tag: "logo", placeholder: "Logo here" })) +
    p(run("Photo: ") + inlineControl({ tag: "photo", placeholder: "Photo here" })),
});
const document = { base64: template.toString("base64") };
const svgUri = (svg: string) => dataUri(Buffer.from(svg), "image/svg+xml");
const decode = (base64: string) => Buffer.from(base64.replace(/^data:[^,]*,/, ""), "base64");
const annotate = (fields: unknown[], to = "") => api.postJson(`/v1/annotate${to ? `?to=${to}` : ""}`, { document, fields }, key);

describe("SVG and WebP pictures through POST /v1/annotate", () => {
  it("shows an SVG signature, a lossy WebP with alpha and a lossless WebP in the PDF LibreOffice makes", { timeout: 180_000 }, async () => {
    const { status, json } = await annotate(
      [
        { id: "signature", type: "signature", value: svgUri(makeSvg()), options: { dimensions: { height: 40 } } },
        { id: "logo", type: "image", value: dataUri(await makeWebp(64, 32, { alpha: true }), "image/webp") },
        { id: "photo", type: "image", value: dataUri(await makeWebp(48, 24, { lossless: true }), "image/webp"), options: { dimensions: { width: 96 } } },
      ],
      "pdf",
    );
    expect(status, JSON.stringify(json)).toBe(200);
    const pdf = decode(json.document.base64);
    const text = await pdfText(pdf);
    expect(text).toContain("Signed:");
    expect(text).not.toMatch(/Sign here|Logo here|Photo here/);
    // Three pictures on the page (LibreOffice may resample the 1024 px SVG fallback to 300 dpi),
    // with their aspect ratios the values' own (3:1, 2:1, 2:1), and soft masks for the transparency
    // of the SVG's background and the WebP's alpha.
    const rows = (await pdfImageRows(pdf)).map((row) => row.trim().split(/\s+/));
    const images = rows.filter((columns) => columns[2] === "image").map((columns) => ({ width: Number(columns[3]), height: Number(columns[4]) }));
    expect(images).toHaveLength(3);
    expect(images.map((image) => Math.round((image.width / image.height) * 10) / 10).sort()).toEqual([2, 2, 3]);
    expect(rows.filter((columns) => columns[2] === "smask").length).toBeGreaterThanOrEqual(2);
  });

  it("writes Word's SVG picture: the sanitised SVG in the svgBlip extension, a PNG fallback as the blip", async () => {
    const { status, json } = await annotate([{ id: "signature", type: "signature", value: svgUri(makeSvg()) }]);
    expect(status).toBe(200);
    const docx = decode(json.document.base64);
    const body = readPart(docx, "word/document.xml");
    expect(body).toMatch(
      /<a:blip r:embed="rId\w+"><a:extLst><a:ext uri="\{96DAC541-7B7A-43D3-8B79-37D633B846F1\}"><asvg:svgBlip xmlns:asvg="http:\/\/schemas.microsoft.com\/office\/drawing\/2016\/SVG\/main" r:embed="rId\w+"\/>/,
    );
    const media = partNames(docx).filter((name) => name.startsWith("word/media/"));
    expect(media.map((name) => name.replace(/^.*\./, "")).sort()).toEqual(["png", "svg"]);
    expect(
      readPartBytes(docx, media.find((name) => name.endsWith(".png"))!)
        .subarray(1, 4)
        .toString(),
    ).toBe("PNG");
    expect(readPart(docx, media.find((name) => name.endsWith(".svg"))!)).toContain("<path");
  });

  it("fetches nothing an SVG points at and reads no local file, in the DOCX and in the PDF", { timeout: 180_000 }, async () => {
    heard.length = 0;
    const hostile = makeSvg(
      300,
      100,
      `<image href="file:///etc/passwd" width="10" height="10"/><image xlink:href="${listener.url("/image.png")}" width="10" height="10"/>` +
        `<use href="${listener.url("/use.svg#a")}"/><rect width="5" height="5" fill="url(${listener.url("/fill.svg#p")})"/>` +
        `<style>@import url(${listener.url("/style.css")});</style><feImage href="${listener.url("/filter.png")}"/>`,
    );
    for (const to of ["", "pdf"]) {
      const { status, json } = await annotate([{ id: "signature", type: "signature", value: svgUri(hostile) }], to);
      expect(status, JSON.stringify(json)).toBe(200);
      const bytes = decode(json.document.base64);
      if (to === "") {
        const svg = readPart(bytes, partNames(bytes).find((name) => name.endsWith(".svg"))!);
        expect(svg).not.toMatch(/passwd|127\.0\.0\.1|@import/);
      } else {
        expect(await pdfText(bytes)).not.toContain("root:");
      }
      expect(bytes.includes("root:x:0:0")).toBe(false);
    }
    expect(heard).toEqual([]);
  });

  it.each([
    { name: "an SVG declaring 60000 x 60000", value: () => svgUri(makeSvg(60000, 60000)), status: 413, code: "IMAGE_TOO_LARGE", text: "60000 x 60000" },
    {
      name: "a WebP header declaring 16383 x 16383",
      value: () => dataUri(makeWebpHeader(16383, 16383), "image/webp"),
      status: 413,
      code: "IMAGE_TOO_LARGE",
      text: "16383 x 16383",
    },
    {
      name: "an SVG with a document type and entities",
      value: () => svgUri(`<!DOCTYPE svg [<!ENTITY a "aaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;">]>${makeSvg(300, 100, "<text>&b;</text>")}`),
      status: 422,
      code: "INVALID_IMAGE",
      text: "declares entities or a document type with an internal subset",
    },
    {
      name: "garbage labelled as WebP",
      value: () => `data:image/webp;base64,${Buffer.from("not a picture at all").toString("base64")}`,
      status: 422,
      code: "INVALID_IMAGE",
      text: "WebP or SVG",
    },
  ])("answers $status $code for $name", async ({ value, status, code, text }) => {
    const answer = await annotate([{ id: "signature", type: "signature", value: value() }]);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ code });
    expect(answer.json.message).toContain(text);
    if (code === "IMAGE_TOO_LARGE") expect(answer.json.message).toContain("the limit is 100 megapixels per image");
  });
});
