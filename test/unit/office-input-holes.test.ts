// The holes issue 36 found in the input checks, each closed: SVG the sanitiser never saw (other
// names, nested in other XML, gzip, RTF pictures, data: URIs, pictures of binary files), fields
// judged by their first word only, altChunk documents passed unchecked, .doc fields judged by their
// text, spreadsheet formulas that read the machine. Pure: bytes in, verdict out.
import { gzipSync } from "node:zlib";
import PizZip from "pizzip";
import { describe, expect, it } from "vitest";
import type { SourceFormat } from "#domain/documents/formats.ts";
import { isSafeField } from "#domain/documents/checks/fields.ts";
import { sanitizeHtml } from "#domain/documents/markup.ts";
import { prepareOfficeInput, type OfficeInputLimits } from "#domain/documents/checks/scrub.ts";
import { docFixture } from "#test/helpers/compound-files.ts";
import { solidPng } from "#test/helpers/convert-fixtures.ts";
import {
  altChunkDocx,
  docWithSvgPicture,
  docWithFieldRenamed,
  readingSvg,
  rtfWithPicture,
  svgNamedPngDocx,
  odsWithFormula,
  wrapped,
  xlsxWithFormula,
} from "#test/helpers/scrub-vectors.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";

const limits: OfficeInputLimits = { maxEntries: 5000, maxUncompressedBytes: 200 * 1024 * 1024, maxImagePixels: 100_000_000, maxSvgBytes: 10 * 1024 * 1024 };
const canary = "/tmp/signet-canary/canary.png";
const prepare = (bytes: Uint8Array, from: SourceFormat) => prepareOfficeInput({ bytes, from, to: "pdf" }, limits);

describe("fields are judged by every word of their instruction", () => {
  it.each([
    [' = INCLUDEPICTURE "x.png" ', false],
    ['\\* MERGEFORMAT INCLUDEPICTURE "x.png"', false],
    ['\\INCLUDETEXT "x.txt"', false],
    ['"INCLUDETEXT" "x.txt"', false],
    ['includePicture "x.png"', false],
    ['QUOTE INCLUDETEXT "x"', false],
    ['HYPERLINK "file:///etc/passwd"', false],
    ['HYPERLINK "C:\\\\Users\\\\x.doc"', false],
    ['HYPERLINK "https://example.com"', true],
    ["= 2 * 3", true],
    ['QUOTE "plain"', true],
    ["PAGE \\* MERGEFORMAT", true],
  ])("%j safe: %s", (instruction, safe) => {
    expect(isSafeField(instruction)).toBe(safe);
  });

  it("neutralises an RTF field whose instruction starts with '=' or a switch before INCLUDEPICTURE", async () => {
    for (const instruction of [`= INCLUDEPICTURE "${canary}"`, `\\\\* MERGEFORMAT INCLUDEPICTURE "${canary}"`]) {
      const rtf = `{\\rtf1\\ansi{\\field{\\*\\fldinst ${instruction}}{\\fldrslt stored result}}\\par}`;
      const { request, removed } = await prepare(Buffer.from(rtf, "latin1"), "rtf");
      expect(removed).toHaveLength(1);
      expect(removed[0]).toContain("INCLUDEPICTURE");
      expect(Buffer.from(request.bytes).toString("latin1")).not.toContain(canary);
      expect(Buffer.from(request.bytes).toString("latin1")).toContain("stored result");
    }
  });
});

describe("SVG the sanitiser never saw", () => {
  it("refuses a DOCX, PPTX or XLSX picture part named .png that holds an SVG nested in other XML (422 naming the part)", async () => {
    for (const from of ["docx", "pptx", "xlsx"] as const) {
      const error = await expectSignetError(prepare(svgNamedPngDocx(wrapped(readingSvg(canary))), from), "INVALID_DOCUMENT");
      expect(error.message).toContain("part word/media/image1.png is an SVG picture Signet does not pass on (the root element must be <svg");
    }
  });

  it.each([
    ["hex", rtfWithPicture(Buffer.from(wrapped(readingSvg(canary))), "hex")],
    ["\\bin", rtfWithPicture(Buffer.from(readingSvg(canary)), "bin")],
    ["gzip hex", rtfWithPicture(gzipSync(readingSvg(canary)), "hex")],
  ])("refuses an RTF \\pict whose %s data is an SVG (422 naming the picture)", async (_, rtf) => {
    const error = await expectSignetError(prepare(rtf, "rtf"), "INVALID_DOCUMENT");
    expect(error.message).toContain("The RTF document has a picture (RTF picture number 1) whose bytes are an SVG drawing");
    // The same RTF named .doc is read as RTF, so the same rule applies.
    await expectSignetError(prepare(rtf, "doc"), "INVALID_DOCUMENT");
  });

  it("passes an RTF \\pict holding a PNG", async () => {
    const { removed } = await prepare(rtfWithPicture(solidPng(4, 4), "hex"), "rtf");
    expect(removed).toEqual([]);
  });

  it("turns an HTML data: URI whose bytes are an SVG into its alt text, whatever its declared type; a real PNG stays", () => {
    const svg = Buffer.from(readingSvg(canary)).toString("base64");
    const png = solidPng(4, 4).toString("base64");
    const html = sanitizeHtml(`<p><img alt="svg in png" src="data:image/png;base64,${svg}"><img alt="real" src="data:image/png;base64,${png}"></p>`);
    expect(html).toContain("[svg in png]");
    expect(html).not.toContain(svg.slice(0, 40));
    expect(html).toContain(`src="data:image/png;base64,${png}"`);
  });

  it("refuses a .doc whose OfficeArt picture holds SVG bytes (422 naming the stream)", async () => {
    const error = await expectSignetError(prepare(docWithSvgPicture(docFixture("embedded-picture-inline.doc"), canary), "doc"), "INVALID_DOCUMENT");
    expect(error.message).toMatch(/^The \.doc file has a picture \(\w+ stream, byte \d+\) whose bytes are an SVG drawing/);
    expect((await prepare(docFixture("embedded-picture-inline.doc"), "doc")).removed).toEqual([]);
    // .xls and .ppt pictures are the same OfficeArt records, found the same way.
    for (const [from, what] of [
      ["xls", ".xls file"],
      ["ppt", ".ppt file"],
    ] as const) {
      const refused = await expectSignetError(prepare(docWithSvgPicture(docFixture("embedded-picture-inline.doc"), canary), from), "INVALID_DOCUMENT");
      expect(refused.message).toContain(`The ${what} has a picture (`);
    }
  });
});

describe("altChunk documents get the same checks", () => {
  it("sanitises an SVG inside an altChunk DOCX and reports it under the chunk's name", async () => {
    const { request, removed } = await prepare(altChunkDocx({ inner: "docx", svg: readingSvg(canary) }), "docx");
    expect(removed).toEqual(["word/afchunk.docx > word/media/image1.svg: image @xlink:href"]);
    const inner = new PizZip(new PizZip(request.bytes).file("word/afchunk.docx")!.asUint8Array());
    expect(inner.file("word/media/image1.svg")!.asText()).not.toContain(canary);
  });

  it("refuses an altChunk DOCX with a nested SVG picture, a DTD, or documents nested three deep; and an HTML altChunk", async () => {
    const nested = await expectSignetError(prepare(altChunkDocx({ inner: "docx", png: wrapped(readingSvg(canary)) }), "docx"), "INVALID_DOCUMENT");
    expect(nested.message).toContain("In the embedded document word/afchunk.docx: The DOCX part word/media/image1.png is an SVG picture");
    const dtd = await expectSignetError(prepare(altChunkDocx({ inner: "docx", dtd: true }), "docx"), "INVALID_DOCUMENT");
    expect(dtd.message).toContain("declares a DTD or entities");
    const deep = await expectSignetError(prepare(altChunkDocx({ inner: "docx", depth: 3 }), "docx"), "INVALID_DOCUMENT");
    expect(deep.message).toContain("nested more than 2 deep");
    const html = await expectSignetError(prepare(altChunkDocx({ inner: "html" }), "docx"), "INVALID_DOCUMENT");
    expect(html.message).toContain("The DOCX part word/afchunk.html is an embedded document of a kind Signet does not check");
    // With an SVG in it, the HTML is first of all a part LibreOffice would draw as an SVG.
    const htmlSvg = await expectSignetError(prepare(altChunkDocx({ inner: "html", svg: readingSvg(canary) }), "docx"), "INVALID_DOCUMENT");
    expect(htmlSvg.message).toContain("The DOCX part word/afchunk.html is an SVG picture Signet does not pass on");
    expect((await prepare(altChunkDocx({ inner: "docx", depth: 2 }), "docx")).removed).toEqual([]);
  });
});

describe(".doc fields are judged by their field-type byte", () => {
  it.each([
    ["includetext-field.doc", "INCLUDETEXT", "QUOTE      "],
    ["link-field.doc", "LINK", "TIME"],
  ])("%s with its field's name overwritten in the text is still refused", async (fixture, name, replacement) => {
    const doc = docWithFieldRenamed(docFixture(fixture), name, replacement);
    expect(doc.includes(Buffer.from(name, "utf16le"))).toBe(false);
    const error = await expectSignetError(prepare(doc, "doc"), "INVALID_DOCUMENT");
    expect(error.message).toBe(
      `The .doc file has a ${name} field, which loads content from outside the document; Signet does not follow such links. Break the link in a word processor (or save as .docx) and upload it again.`,
    );
    expect(error.details).toEqual([{ field: "file", issue: `${name} field (field type)` }]);
  });
});

describe("spreadsheet formulas that read the machine are refused, naming the cell", () => {
  it.each([
    ["INDIRECT", "<f>INDIRECT(\"'file:///etc/passwd'#$Sheet1.A1\")</f>", "INDIRECT"],
    ["INDIRECT in character references", "<f>&#73;NDIRECT(A2)</f>", "INDIRECT"],
    ["WEBSERVICE", '<f>WEBSERVICE("http://127.0.0.1/")</f>', "WEBSERVICE"],
    ["FILTERXML", '<f>filterxml(A2,"//x")</f>', "FILTERXML"],
    ["INFO", '<f>INFO("osversion")</f>', "INFO"],
    ["CELL filename", '<f>CELL("filename")</f>', 'CELL("filename")'],
    ["HYPERLINK to file:", '<f>HYPERLINK("file:///etc/passwd")</f>', "a file: reference"],
  ])("XLSX %s", async (_, formula, name) => {
    const error = await expectSignetError(prepare(xlsxWithFormula(formula), "xlsx"), "INVALID_DOCUMENT");
    expect(error.message).toContain(`The XLSX has a formula in cell B2 (xl/worksheets/sheet1.xml) that uses ${name}`);
  });

  it("XLSX defined name, and ODS cell formula", async () => {
    const named = await expectSignetError(
      prepare(xlsxWithFormula("<f>1</f>", '<definedName name="x">INDIRECT(Sheet1!A1)</definedName>'), "xlsx"),
      "INVALID_DOCUMENT",
    );
    expect(named.message).toContain("xl/workbook.xml (definedName) that uses INDIRECT");
    const ods = await expectSignetError(prepare(odsWithFormula('of:=INDIRECT("x")'), "ods"), "INVALID_DOCUMENT");
    expect(ods.message).toContain("formula in content.xml (cell number 1, table:formula) that uses INDIRECT");
  });

  it("passes ordinary formulas", async () => {
    await expect(prepare(xlsxWithFormula("<f>SUM(A1:A3)*2</f>"), "xlsx")).resolves.toMatchObject({ removed: [] });
    await expect(prepare(odsWithFormula("of:=SUM([.A1:.A3])"), "ods")).resolves.toMatchObject({ removed: [] });
  });
});
