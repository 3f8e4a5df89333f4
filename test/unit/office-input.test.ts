// What every document loses before LibreOffice sees it: references outside the
// document, and images declaring more pixels than the limit. Pure: bytes in, bytes out.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import PizZip from "pizzip";
import { afterAll, describe, expect, it } from "vitest";
import { readCompoundStreams } from "#domain/shared/compound-file.ts";
import { fieldName, isSafeField } from "#domain/documents/checks/fields.ts";
import { prepareOfficeInput, type OfficeInputLimits } from "#domain/documents/checks/scrub.ts";
import { intake } from "#domain/documents/intake.ts";
import { docLinkField, neutraliseRtf, plainText } from "#domain/documents/checks/rtf.ts";
import { readPixelSize } from "#domain/pictures/image-info.ts";
import { isSignetError, type SignetError } from "#domain/shared/errors.ts";
import { readZipDirectory } from "#domain/shared/zip-container.ts";
import { docFixture, pointStreamsAt } from "#test/helpers/compound-files.ts";
import { fixtureDocx, pngDeclaring, solidPng } from "#test/helpers/convert-fixtures.ts";
import { makeWebpHeader } from "#test/helpers/annotate-images.ts";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";
import { vectors, writeMarkers } from "#test/helpers/office-vectors.ts";
import { buildZip } from "#test/helpers/zip-builder.ts";

const limits: OfficeInputLimits = { maxEntries: 5000, maxUncompressedBytes: 200 * 1024 * 1024, maxImagePixels: 100_000_000, maxSvgBytes: 10 * 1024 * 1024 };
const base = "http://127.0.0.1:9";
const dir = mkdtempSync(join(tmpdir(), "signet-office-input-"));
const markers = writeMarkers(dir);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** allText is every entry of a package (or the file itself) as text, to search for what must be gone. */
function allText(bytes: Uint8Array): string {
  if (bytes[0] !== 0x50 || bytes[1] !== 0x4b) return Buffer.from(bytes).toString("latin1");
  const zip = new PizZip(bytes);
  return Object.values(zip.files)
    .map((file) => file.asText())
    .join("\n");
}

async function refusal(promise: Promise<unknown>): Promise<SignetError> {
  try {
    await promise;
  } catch (error) {
    if (isSignetError(error)) return error;
    throw error;
  }
  throw new Error("expected a SignetError");
}

function docxWithMedia(name: string, data: Buffer): Buffer {
  const zip = new PizZip(fixtureDocx());
  zip.file(name, data);
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

describe("prepareOfficeInput removes every reference outside the document", () => {
  const cases = vectors(base, markers).filter((vector) => vector.from !== "html" && vector.from !== "md");
  it.each(cases.map((vector) => [vector.name, vector] as const))("%s", async (_, vector) => {
    expect(allText(vector.bytes)).toMatch(/127|marker/);
    const { request, removed } = await prepareOfficeInput({ bytes: vector.bytes, from: vector.from, to: "pdf" }, limits);
    expect(removed.length).toBeGreaterThan(0);
    const after = allText(request.bytes);
    // (a field's instruction may be split over runs: "http://127" + ".0.0.1:9/...")
    expect(after).not.toMatch(/127|marker/);
    // The document's own text stays.
    expect(after).toContain(vector.text);
  });

  it("keeps a document without references byte for byte", async () => {
    const bytes = fixtureDocx();
    const { request, removed } = await prepareOfficeInput({ bytes, from: "docx", to: "pdf" }, limits);
    expect(removed).toEqual([]);
    expect(request.bytes).toBe(bytes);
  });

  it("keeps plain hyperlinks (http, mailto) and fields that only compute (PAGE, HYPERLINK)", async () => {
    const docx = new PizZip(
      buildDocx({
        body:
          p(`<w:hyperlink r:id="rIdWeb">${run("the web")}</w:hyperlink>`) +
          p('<w:fldSimple w:instr=" PAGE "><w:r><w:t>1</w:t></w:r></w:fldSimple>') +
          p(
            `<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> HYPERLINK "https://example.org/" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>${run("site")}<w:r><w:fldChar w:fldCharType="end"/></w:r>`,
          ),
      }),
    );
    const rels = zipText(docx, "word/_rels/document.xml.rels").replace(
      "</Relationships>",
      '<Relationship Id="rIdWeb" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="https://example.org/a?b=1&amp;c=2" TargetMode="External"/>' +
        '<Relationship Id="rIdShare" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink" Target="file://server/share/x.docx" TargetMode="External"/></Relationships>',
    );
    docx.file("word/_rels/document.xml.rels", rels);
    const bytes = docx.generate({ type: "nodebuffer" });
    const { request, removed } = await prepareOfficeInput({ bytes, from: "docx", to: "pdf" }, limits);
    expect(removed).toEqual(["word/_rels/document.xml.rels: relationship rIdShare (hyperlink)"]);
    const after = new PizZip(request.bytes);
    expect(zipText(after, "word/_rels/document.xml.rels")).toContain('Target="https://example.org/a?b=1&amp;c=2"');
    expect(zipText(after, "word/document.xml")).toContain('w:instr=" PAGE "');
    expect(zipText(after, "word/document.xml")).toContain("HYPERLINK");
  });

  const fieldRun = (instr: string) => `<w:r><w:instrText xml:space="preserve">${instr}</w:instrText></w:r>`;
  const complex = (begin: string, ...instructions: string[]) =>
    p(
      `<w:r>${begin}</w:r>${instructions.map(fieldRun).join("")}<w:r><w:fldChar w:fldCharType="separate"/></w:r>${run("result")}<w:r><w:fldChar w:fldCharType="end"/></w:r>`,
    );
  const begin = '<w:fldChar w:fldCharType="begin"/>';
  it.each([
    ["an instruction written with character references", complex(begin, " &#73;NCLUDEPICTURE &quot;http://127.0.0.1:9/a&quot; ")],
    ["an instruction in CDATA and split by a comment", complex(begin, "<![CDATA[ INCLUDE]]><!-- x -->", 'TEXT "/etc/hostname"')],
    [
      "a field whose begin is written with a character reference",
      complex('<w:fldChar w:fldCharType="&#98;egin"/>', " LINK Excel.Sheet.8 ", '"http://127.0.0.1:9/b"'),
    ],
    ["an instruction outside any field", p(fieldRun(' INCLUDEPICTURE "http://127.0.0.1:9/c" '))],
    [
      "a simple field with an escaped instruction",
      p('<w:fldSimple w:instr=" &#x49;NCLUDETEXT &quot;/etc/hostname&quot; ">' + run("result") + "</w:fldSimple>"),
    ],
    [
      "a VML src after an attribute value holding >",
      p('<w:r><w:pict><v:shape><v:imagedata o:title="a>b" src="http://127.0.0.1:9/d.png"/></v:shape></w:pict></w:r>'),
    ],
  ])("neutralises %s", async (_, body) => {
    // (the v: and o: prefixes stay undeclared: the checks work on tags and need no namespace)
    const docx = buildDocx({ body });
    const { request, removed } = await prepareOfficeInput({ bytes: docx, from: "docx", to: "pdf" }, limits);
    expect(removed).toHaveLength(1);
    const xml = zipText(new PizZip(request.bytes), "word/document.xml");
    expect(xml).not.toMatch(/127\.0|hostname|#73;|#x49;/);
    if (body.includes("result")) expect(xml).toContain("result");
  });

  it("removes a mail-merge data source whole and a Relationship written with an end tag", async () => {
    const zip = new PizZip(fixtureDocx());
    zip.file(
      "word/settings.xml",
      `<?xml version="1.0"?><w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:mailMerge><w:dataSource r:id="rIdData"/><w:query w:val="SELECT *"/></w:mailMerge><w:zoom w:percent="100"/></w:settings>`,
    );
    zip.file(
      "word/_rels/settings.xml.rels",
      '<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rIdData" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/mailMergeSource" Target="file:///C:/data.xlsx" TargetMode="External"></Relationship></Relationships>',
    );
    const { request, removed } = await prepareOfficeInput({ bytes: zip.generate({ type: "nodebuffer" }), from: "docx", to: "pdf" }, limits);
    expect(removed).toEqual(["word/settings.xml: mail-merge data source", "word/_rels/settings.xml.rels: relationship rIdData (mailMergeSource)"]);
    const after = new PizZip(request.bytes);
    expect(zipText(after, "word/settings.xml")).toBe(
      '<?xml version="1.0"?><w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:zoom w:percent="100"/></w:settings>',
    );
    expect(zipText(after, "word/_rels/settings.xml.rels")).not.toContain("Relationship ");
  });

  it("keeps an ODT's mimetype first and stored when it rewrites the package", async () => {
    const vector = vectors(base, markers).find((v) => v.name.startsWith("odt list bullet"))!;
    const { request } = await prepareOfficeInput({ bytes: vector.bytes, from: "odt", to: "pdf" }, limits);
    const [first] = readZipDirectory(request.bytes, limits);
    expect(first).toMatchObject({ name: "mimetype", method: 0 });
  });

  it.each([
    ["a DTD in a part", "word/document.xml", '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "http://127.0.0.1:9/e">]><x>&e;</x>', "DTD"],
    ["a relationships part in UTF-16", "word/_rels/document.xml.rels", Buffer.from('\ufeff<?xml version="1.0"?><Relationships/>', "utf16le"), "UTF-8"],
    ["a declared encoding other than UTF-8", "word/styles.xml", '<?xml version="1.0" encoding="ISO-8859-1"?><x/>', "UTF-8"],
  ])("refuses %s (INVALID_DOCUMENT)", async (_, part, data, says) => {
    const docx = new PizZip(fixtureDocx());
    docx.file(part, data);
    const error = await refusal(prepareOfficeInput({ bytes: docx.generate({ type: "nodebuffer" }), from: "docx", to: "pdf" }, limits));
    expect(error.code).toBe("INVALID_DOCUMENT");
    expect(error.message).toContain(says);
  });

  it("refuses a .doc whose text holds a linking field, in 8-bit or UTF-16 text", async () => {
    for (const text of [
      Buffer.from('\u0013 INCLUDEPICTURE "http://x/y.png" \u0014\u0015', "latin1"),
      Buffer.from("\u0013LINK Excel.Sheet.8 \u0014", "utf16le"),
    ]) {
      const bytes = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0]), Buffer.alloc(508), text]);
      expect(docLinkField(bytes)).toMatch(/INCLUDEPICTURE|LINK/);
      const error = await refusal(prepareOfficeInput({ bytes, from: "doc", to: "pdf" }, limits));
      expect(error.code).toBe("INVALID_DOCUMENT");
      expect(error.message).toMatch(/field, which loads content from outside the document/);
    }
    expect(docLinkField(Buffer.from("\u0013 PAGE \u0014 1 \u0015 a link to nothing", "utf16le"))).toBeUndefined();
  });

  // Files LibreOffice wrote (test/fixtures/doc/README.md); the links point at a closed local port.
  it.each([
    ["linked-picture-anchored.doc", "a picture linked to a file or URL", "linked picture (OfficeArt, 1Table stream)"],
    ["linked-picture-inline-no-field.doc", "a picture linked to a file or URL", "linked picture (PICF, Data stream)"],
  ])("refuses %s, a picture linked without a field, naming the reason", async (name, reason, issue) => {
    const error = await refusal(prepareOfficeInput({ bytes: docFixture(name), from: "doc", to: "pdf" }, limits));
    expect(error.code).toBe("INVALID_DOCUMENT");
    expect(error.message).toBe(
      `The .doc file has ${reason}, which loads content from outside the document; Signet does not follow such links. Break the link in a word processor (or save as .docx) and upload it again.`,
    );
    expect(error.details).toEqual([{ field: "file", issue }]);
  });

  it.each(["embedded-picture-anchored.doc", "embedded-picture-inline.doc"])("passes %s (its picture is embedded) on unchanged", async (name) => {
    const bytes = docFixture(name);
    const { request, removed } = await prepareOfficeInput({ bytes, from: "doc", to: "pdf" }, limits);
    expect(request.bytes).toBe(bytes);
    expect(removed).toEqual([]);
  });

  it("reads the streams of a compound file (this 1Table lives in the mini stream), refuses one it cannot follow", async () => {
    const bytes = docFixture("linked-picture-anchored.doc");
    const streams = await readCompoundStreams(bytes, ".doc file");
    expect(streams.map((stream) => stream.name)).toEqual(expect.arrayContaining(["WordDocument", "1Table"]));
    expect(streams.find((stream) => stream.name === "1Table")!.bytes.includes(Buffer.from("http://127.0.0.1:65432/float-pic.png", "utf16le"))).toBe(true);
    // The same file cut short: a sector chain leaves the file.
    const cut = await refusal(prepareOfficeInput({ bytes: bytes.subarray(0, 2048), from: "doc", to: "pdf" }, limits));
    expect(cut).toMatchObject({ code: "INVALID_DOCUMENT", message: expect.stringMatching(/^The \.doc file is damaged \(.*\); save it again/) });
    // Every stream entry pointed at WordDocument's chain: read once per entry, it would copy the
    // file many times over (a 25 MB file with thousands of entries is gigabytes); refused unread.
    const overlapping = pointStreamsAt(bytes, "WordDocument");
    expect((await readCompoundStreams(bytes, ".doc file")).reduce((sum, stream) => sum + stream.bytes.length, 0)).toBeLessThanOrEqual(bytes.length);
    const claimed = await refusal(prepareOfficeInput({ bytes: overlapping, from: "doc", to: "pdf" }, limits));
    expect(claimed).toMatchObject({
      code: "INVALID_DOCUMENT",
      message: "The .doc file is damaged (its streams claim more bytes than the file holds); save it again from a word processor and upload it again.",
    });
    // Not a compound file at all (an HTML page named .doc, which LibreOffice also opens): only fields are looked for.
    const html = Buffer.from("<html><body><p>plain</p></body></html>");
    await expect(prepareOfficeInput({ bytes: html, from: "doc", to: "pdf" }, limits)).resolves.toMatchObject({ removed: [] });
  });
});

describe("RTF", () => {
  it.each([
    ["control words and groups", "{\\*\\fldinst {INCLUDE}{\\b PICTURE} x}", "INCLUDEPICTURE x"],
    ["hex escapes", "{\\*\\fldinst \\'49NCLUDETEXT a}", "INCLUDETEXT a"],
    ["unicode escapes with their fallback", "{\\*\\fldinst \\u73?NCLUDETEXT a}", "INCLUDETEXT a"],
    ["escaped braces and backslashes", "{\\*\\fldinst QUOTE \\{\\\\\\}}", "QUOTE {\\}"],
  ])("plainText decodes %s as a reader does", (_, rtf, text) => {
    expect(plainText(rtf).trim()).toBe(text);
  });

  it("neutralises linking fields and linked-picture paths, keeps PAGE and the field results", async () => {
    const rtf =
      '{\\rtf1{\\field{\\*\\fldinst \\u73?NCLUDEPICTURE "http://x/y.png"}{\\fldrslt shown}}{\\field{\\*\\fldinst PAGE}{\\fldrslt 1}}' +
      "{\\shp{\\*\\shpinst{\\sp{\\sn pibName}{\\sv file:///etc/passwd}}}}{\\pict\\pngblip\\bin4 {}}}}";
    const scan = await neutraliseRtf(Buffer.from(rtf, "latin1"));
    const after = Buffer.from(scan.bytes).toString("latin1");
    expect(scan.removed).toEqual(['field INCLUDEPICTURE "http://x/y.png"', "shape property file:///etc/passwd"]);
    expect(after).not.toMatch(/y\.png|passwd/);
    expect(after).toContain("{\\fldrslt shown}");
    expect(after).toContain("{\\*\\fldinst PAGE}");
    // \bin data is skipped, not read as braces.
    expect(scan.pictures).toHaveLength(1);
  });
});

describe("image sizes", () => {
  it.each([
    ["PNG", solidPng(3, 2), { format: "png", width: 3, height: 2 }],
    ["GIF", Buffer.from("474946383961050007000000", "hex"), { format: "gif", width: 5, height: 7 }],
    [
      "BMP",
      Buffer.concat([Buffer.from("BM"), Buffer.alloc(12), Buffer.from("28000000", "hex"), Buffer.from("60ea0000", "hex"), Buffer.from("68c5ffff", "hex")]),
      { format: "bmp", width: 60000, height: 15000 },
    ],
    [
      "TIFF (little-endian, directory at the end)",
      Buffer.concat([
        Buffer.from("49492a0010000000", "hex"),
        Buffer.alloc(8),
        Buffer.from("0200" + "000104000100000060ea0000" + "010103000100000010270000", "hex"),
      ]),
      { format: "tiff", width: 60000, height: 10000 },
    ],
    ["WebP (VP8X)", makeWebpHeader(16383, 16383), { format: "webp", width: 16383, height: 16383 }],
    [
      "JPEG after an APP1 segment",
      Buffer.concat([Buffer.from("ffd8ffe10006", "hex"), Buffer.alloc(4), Buffer.from("ffc0000b08ea60ea6003011100", "hex")]),
      { format: "jpeg", width: 60000, height: 60000 },
    ],
  ])("readPixelSize reads a %s header", (_, bytes, size) => {
    expect(readPixelSize(bytes)).toEqual(size);
  });

  it("refuses a 10 MB PNG declaring 60000 x 60000 inside a DOCX with 413 IMAGE_TOO_LARGE naming the limit", async () => {
    const bytes = docxWithMedia("word/media/image1.png", pngDeclaring(60000, 60000, 10 * 1024 * 1024));
    const error = await refusal(prepareOfficeInput({ bytes, from: "docx", to: "pdf" }, limits));
    expect(error.code).toBe("IMAGE_TOO_LARGE");
    expect(error.message).toBe(
      "The image word/media/image1.png is 60000 x 60000 pixels (3600 megapixels); the limit is 100 megapixels per image. Scale it down and try again.",
    );
  });

  it.each([
    ["an ODT picture", "odt"],
    ["an RTF picture", "rtf"],
    ["an HTML data URI", "html"],
    ["a Markdown data URI", "md"],
  ] as const)("refuses %s over the limit", async (_, from) => {
    const png = pngDeclaring(20000, 20000, 64);
    const bytes = {
      odt: () =>
        buildZip([
          { name: "mimetype", data: "application/vnd.oasis.opendocument.text", stored: true },
          { name: "content.xml", data: '<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>' },
          { name: "Pictures/big.png", data: png },
        ]),
      rtf: () => Buffer.from(`{\\rtf1{\\pict{\\*\\blipuid 00}\\pngblip\\picw1\\pich1 ${png.toString("hex")}}}`, "latin1"),
      html: () => Buffer.from(`<p>x</p><img src="data:image/png;base64,${png.toString("base64")}">`),
      md: () => Buffer.from(`# x\n\n![big](data:image/png;base64,${png.toString("base64")})\n`),
    }[from]();
    const error = await refusal(prepareOfficeInput({ bytes, from, to: "pdf" }, limits));
    expect(error.code).toBe("IMAGE_TOO_LARGE");
    expect(error.message).toContain("20000 x 20000 pixels (400 megapixels)");
  });

  it("passes images within the limit and files that are no image", async () => {
    const bytes = docxWithMedia("word/media/wide.png", pngDeclaring(10_000, 10_000, 64));
    await expect(prepareOfficeInput({ bytes, from: "docx", to: "pdf" }, limits)).resolves.toBeDefined();
    const webp = docxWithMedia("word/media/big.webp", makeWebpHeader(16383, 16383));
    expect((await refusal(prepareOfficeInput({ bytes: webp, from: "docx", to: "pdf" }, limits))).message).toContain("16383 x 16383");
    const other = docxWithMedia("word/media/blob.bin", deflateRawSync(Buffer.alloc(1000, 1)));
    await expect(prepareOfficeInput({ bytes: other, from: "docx", to: "pdf" }, limits)).resolves.toBeDefined();
  });
});

describe("intake", () => {
  it("hands the converter the prepared document and what went", async () => {
    const vector = vectors(base, markers).find((v) => v.name.startsWith("docx altChunk (http)"))!;
    const prepared = await intake(vector.bytes, "docx", { ...limits, maxDocumentBytes: 25 * 1024 * 1024 });
    expect(allText(Buffer.from(prepared.bytes))).not.toContain(base);
    expect(prepared.removed).toEqual(["word/_rels/document.xml.rels: relationship rIdChunk (aFChunk)"]);
    expect(prepared.format).toBe("docx");
  });
});

describe("fields", () => {
  it.each([
    [' INCLUDEPICTURE "x" \\d ', "INCLUDEPICTURE", false],
    ["includetext x", "INCLUDETEXT", false],
    ["LINK Excel.Sheet.8", "LINK", false],
    ["DDEAUTO x", "DDEAUTO", false],
    ["PAGE \\* MERGEFORMAT", "PAGE", true],
    ["= 2 * 3", "=", true],
    ["", "", true],
  ])("%j is %s, safe %s", (instruction, name, safe) => {
    expect(fieldName(instruction)).toBe(name);
    expect(isSafeField(instruction)).toBe(safe);
  });
});

function zipText(zip: PizZip, name: string): string {
  return zip.file(name)!.asText();
}
