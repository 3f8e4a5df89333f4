import { describe, expect, it } from "vitest";
import { fillTemplate } from "#domain/docx/annotate.ts";
import { imageSize } from "#domain/pictures/load.ts";
import { readImageInfo } from "#domain/pictures/image-info.ts";
import { scanPart } from "#domain/docx/scan.ts";
import { SignetError } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
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
  it("finds outermost controls, sections and paragraph text across split runs", async () => {
    const xml =
      '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>' +
      "<w:p><w:r><w:t>{{a</w:t></w:r><w:r><w:t>b}} &amp; <![CDATA[x]]></w:t></w:r></w:p><!-- <w:sdt> in a comment -->" +
      "<w:sdt><w:sdtPr/><w:sdtContent><w:p><w:sdt><w:sdtContent/></w:sdt></w:p></w:sdtContent></w:sdt>" +
      '<w:p w:rsidR="a>b"><w:pPr><w:sectPr/></w:pPr></w:p><w:sectPr><w:pgSz w:w="1"/></w:sectPr></w:body></w:document>';
    const scan = await scanPart(xml, "test");
    expect(scan.controls).toHaveLength(1);
    expect(scan.controls[0]!.parent).toBe("body");
    expect(xml.slice(scan.controls[0]!.start, scan.controls[0]!.end)).toMatch(/^<w:sdt>.*<\/w:sdt>$/);
    expect(scan.sections).toHaveLength(2);
    expect(scan.paragraphTexts[0]).toBe("{{ab}} & x");
  });

  it("gives UTF-16 exact spans with astral characters, CRLF and '>' in attribute values", async () => {
    const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"';
    // Astral characters (emoji U+1F600, CJK extension B U+20000) are two UTF-16 units each; CRLF is
    // two units that saxes reports as one newline; '>' and "/>" are legal inside attribute values.
    const before = '<w:p w:rsidR="a>b" w:x="/>"><w:r><w:t>\u{1F600}\u{20000}\r\n\u{1F600} {{ph}} &#x1F600;</w:t></w:r></w:p>\r\n';
    const control =
      '<w:sdt>\r\n<w:sdtPr><w:alias w:val="x>\u{1F600}>y"/><w:tag w:val=\'{"fieldId":"\u{20000}>"}\'/></w:sdtPr>' +
      '<w:sdtContent><w:r><w:t xml:space="preserve">\u{20000}\u{1F600} a&gt;b</w:t></w:r></w:sdtContent>\r\n</w:sdt\r\n>';
    const selfClosing = "<w:sdt\r\n/>";
    const section = '<w:sectPr w:rsidR="\u{1F600}>"><w:pgSz w:w="1"/></w:sectPr>';
    const xml = `<?xml version="1.0"?>\r\n<w:document ${W}><w:body>${before}<w:p>${control}</w:p>\u{1F600}${selfClosing}${section}</w:body></w:document>`;
    const scan = await scanPart(xml, "test");
    const slices = scan.controls.map((span) => xml.slice(span.start, span.end));
    expect(slices).toEqual([control, selfClosing]);
    expect(scan.controls.map((span) => span.parent)).toEqual(["p", "body"]);
    expect(scan.controls[0]!.start).toBe(xml.indexOf(control));
    expect(scan.sections.map((span) => xml.slice(span.start, span.end))).toEqual([section]);
    // Text is decoded by saxes (character references, CRLF normalised to LF as XML requires).
    expect(scan.paragraphTexts[0]).toBe("\u{1F600}\u{20000}\n\u{1F600} {{ph}} \u{1F600}");
    expect(scan.paragraphTexts[1]).toBe("\u{20000}\u{1F600} a>b");
  });

  it("reads a header's root: control parent, drawing ids, namespace declarations", async () => {
    const xml =
      '<w:hdr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:x=\'urn:a&amp;"b\'>' +
      '<w:sdt><w:sdtContent><w:p><wp:docPr id="7"/><wp:docPr id="12" name="\u{1F600}"/></w:p></w:sdtContent></w:sdt><w:p><w:r><w:t>\u{20000}</w:t></w:r></w:p></w:hdr>';
    const scan = await scanPart(xml, "test");
    expect(scan.controls).toHaveLength(1);
    expect(scan.controls[0]!.parent).toBe("hdr");
    const { start, end } = scan.controls[0]!;
    expect(xml.slice(start, end)).toMatch(/^<w:sdt>.*<\/w:sdt>$/u);
    expect(xml.slice(end)).toMatch(/^<w:p>/);
    expect(scan.maxDrawingId).toBe(12);
    expect(scan.prefixes.get("x")).toBe('urn:a&"b');
    expect(scan.rootDeclarations).toBe(
      ' xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:x="urn:a&amp;&quot;b"',
    );
  });

  it("matches names by the prefixes the root binds", async () => {
    const xml = '<doc xmlns="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:w="urn:other"><w:sdt/><sdt/><p><t>x</t></p></doc>';
    const scan = await scanPart(xml, "test");
    expect(scan.controls.map((span) => xml.slice(span.start, span.end))).toEqual(["<sdt/>"]);
    expect(scan.paragraphTexts).toEqual(["x"]);
  });

  it.each([
    { name: "a mismatched close tag", xml: "<a><b></a>", message: /line 1, column 10: unexpected close tag; <b> is still open/ },
    { name: "an unclosed tag", xml: '<w:document xmlns:w="urn:w"><w:body><w:p>', message: /unclosed tag/ },
    { name: "an unterminated start tag", xml: '<a><b c="1"</a>', message: /not well-formed/ },
    { name: "an undefined entity", xml: "<a>&nbsp;</a>", message: /undefined entity/ },
    { name: "'<' in an attribute value", xml: '<a b="<"/>', message: /disallowed character/ },
    { name: "two root elements", xml: "<a/><b/>", message: /only one root/ },
    { name: "an empty part", xml: "", message: /root element/ },
    { name: "an entity declaration", xml: '<!ENTITY x "y"><a/>', message: /DTD/ },
    { name: "a document type", xml: "<!DOCTYPE a [<!ENTITY x SYSTEM 'file:///etc/passwd'>]><a>&x;</a>", message: /DTD/ },
  ])("refuses $name as INVALID_DOCUMENT", async ({ xml, message }) => {
    let caught: unknown;
    try {
      await scanPart(xml, "word/document.xml");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SignetError);
    expect((caught as SignetError).code).toBe("INVALID_DOCUMENT");
    expect((caught as SignetError).message).toMatch(message);
    expect((caught as SignetError).message).toContain("word/document.xml");
  });
});

describe("text width", () => {
  it("caps natural-size images at the section's own text width", async () => {
    // A5 portrait: 8391 twips wide, 1000 twips margins each side = 6391 twips = 426.07 px.
    const docx = buildDocx({
      body: p(inlineControl({ tag: "pic" })),
      sectPr: '<w:sectPr><w:pgSz w:w="8391" w:h="11906"/><w:pgMar w:left="1000" w:right="1000" w:top="1000" w:bottom="1000"/></w:sectPr>',
    });
    const fetcher: Fetcher = {
      fetch: async () => {
        throw new Error("unused");
      },
    };
    const out = await fillTemplate(docx, [{ id: "pic", type: "image", value: dataUri(makePng(1000, 500)) }], {
      fetcher,
      limits: {
        maxDocxEntries: 100,
        maxDocxUncompressedBytes: 10_000_000,
        maxDocxControls: 100,
        maxDocxXmlNodes: 10_000,
        maxDocxControlNodes: 10_000,
        maxImageBytes: 1_000_000,
        maxTotalImageBytes: 50_000_000,
      },
    });
    expect(readPart(out, "word/document.xml")).toContain(`<wp:extent cx="${Math.round((6391 / 15) * 9525)}" cy="${Math.round((6391 / 30) * 9525)}"/>`);
  });
});
