import { describe, expect, it } from "vitest";
import { fillTemplate } from "#domain/docx/annotate.ts";
import { imageSize } from "#domain/docx/image.ts";
import { readImageInfo } from "#domain/docx/image-info.ts";
import { scanPart } from "#domain/docx/scan.ts";
import type { Fetcher } from "#domain/fetcher.ts";
import { buildDocx, inlineControl, p, readPart } from "#test/helpers/docx-builder.ts";
import { dataUri, makeGifHeader, makeJpegHeader, makePng } from "#test/helpers/annotate-images.ts";

describe("readImageInfo", () => {
  it.each([
    { name: "PNG", bytes: makePng(31, 17), expected: { format: "png", width: 31, height: 17 } },
    { name: "GIF", bytes: makeGifHeader(640, 480), expected: { format: "gif", width: 640, height: 480 } },
    { name: "JPEG", bytes: makeJpegHeader(1024, 768), expected: { format: "jpeg", width: 1024, height: 768 } },
    { name: "PDF", bytes: Buffer.from("%PDF-1.7"), expected: undefined },
    { name: "truncated PNG", bytes: makePng(3, 3).subarray(0, 20), expected: undefined },
  ])("$name", ({ bytes, expected }) => {
    const info = readImageInfo(bytes);
    if (expected === undefined) expect(info).toBeUndefined();
    else expect(info).toMatchObject(expected);
  });
});

describe("imageSize", () => {
  const info = { width: 400, height: 200 };
  it.each([
    { requested: { width: 100, height: 30 }, expected: { width: 100, height: 30 } },
    { requested: { width: "100" }, expected: { width: 100, height: 50 } },
    { requested: { height: "50.5" }, expected: { width: 101, height: 50.5 } },
    { requested: undefined, expected: { width: 400, height: 200 } },
    { requested: {}, max: 200, expected: { width: 200, height: 100 } },
  ])("$requested (max $max)", ({ requested, max, expected }) => {
    expect(imageSize(info, requested, max ?? 624)).toEqual(expected);
  });
});

describe("scanPart", () => {
  it("finds outermost controls, sections and paragraph text across split runs", () => {
    const xml =
      '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' +
      '<w:p><w:r><w:t>{{a</w:t></w:r><w:r><w:t>b}} &amp; <![CDATA[x]]></w:t></w:r></w:p><!-- <w:sdt> in a comment -->' +
      '<w:sdt><w:sdtPr/><w:sdtContent><w:p><w:sdt><w:sdtContent/></w:sdt></w:p></w:sdtContent></w:sdt>' +
      '<w:p w:rsidR="a>b"><w:pPr><w:sectPr/></w:pPr></w:p><w:sectPr><w:pgSz w:w="1"/></w:sectPr></w:body></w:document>';
    const scan = scanPart(xml, "test");
    expect(scan.controls).toHaveLength(1);
    expect(scan.controls[0]!.parent).toBe("body");
    expect(xml.slice(scan.controls[0]!.start, scan.controls[0]!.end)).toMatch(/^<w:sdt>.*<\/w:sdt>$/);
    expect(scan.sections).toHaveLength(2);
    expect(scan.paragraphTexts[0]).toBe("{{ab}} & x");
  });

  it.each([
    { name: "mismatched tags", xml: "<a><b></a>", message: "closes" },
    { name: "unclosed root", xml: "<a>", message: "never closed" },
    { name: "entity declaration", xml: '<!ENTITY x "y"><a/>', message: "DTD" },
  ])("refuses $name", ({ xml, message }) => {
    expect(() => scanPart(xml, "test")).toThrow(message);
  });
});

describe("text width", () => {
  it("caps natural-size images at the section's own text width", async () => {
    // A5 portrait: 8391 twips wide, 1000 twips margins each side = 6391 twips = 426.07 px.
    const docx = buildDocx({ body: p(inlineControl({ tag: "pic" })), sectPr: '<w:sectPr><w:pgSz w:w="8391" w:h="11906"/><w:pgMar w:left="1000" w:right="1000" w:top="1000" w:bottom="1000"/></w:sectPr>' });
    const fetcher: Fetcher = { fetch: async () => { throw new Error("unused"); } };
    const out = await fillTemplate(docx, [{ id: "pic", type: "image", value: dataUri(makePng(1000, 500)) }], {
      fetcher,
      limits: { maxDocxEntries: 100, maxDocxUncompressedBytes: 10_000_000, maxImageBytes: 1_000_000 },
    });
    expect(readPart(out, "word/document.xml")).toContain(`<wp:extent cx="${Math.round((6391 / 15) * 9525)}" cy="${Math.round((6391 / 30) * 9525)}"/>`);
  });
});
