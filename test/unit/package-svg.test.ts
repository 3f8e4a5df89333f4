// SVG pictures inside a DOCX or ODT before LibreOffice sees them (functions/domain/documents/checks/package-svg.ts,
// through prepareOfficeInput): sanitised as annotate's SVG values are, refused when they declare
// entities, are compressed or declare too many pixels; found by their bytes as well as by their name.
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { prepareOfficeInput } from "#domain/documents/checks/scrub.ts";
import { svgPartKind } from "#domain/documents/checks/package-svg.ts";
import { hostileSvg } from "#test/helpers/office-vectors.ts";
import { expectSignetError } from "#test/helpers/signet-error.ts";
import { buildZip } from "#test/helpers/zip-builder.ts";
import PizZip from "pizzip";

const limits = { maxEntries: 5000, maxUncompressedBytes: 200 * 1024 * 1024, maxImagePixels: 100_000_000, maxSvgBytes: 10 * 1024 * 1024 };
const base = "http://127.0.0.1:9";
const markers = { textPath: "/tmp/marker.txt", imagePath: "/tmp/marker.png", text: "marker" };
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="96" height="48"><rect width="96" height="48"/></svg>';

const docx = (parts: Array<{ name: string; data: string | Buffer }>) =>
  buildZip([
    { name: "[Content_Types].xml", data: '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>' },
    { name: "word/document.xml", data: '<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"/>' },
    ...parts,
  ]);
const prepare = (bytes: Buffer, from: "docx" | "odt" = "docx") => prepareOfficeInput({ bytes, from, to: "pdf" }, limits);
const part = (bytes: Uint8Array, name: string) => new PizZip(bytes).file(name)!.asText();

describe("SVG pictures in a package", () => {
  it.each(["docx", "odt"] as const)("%s: every reference out of the SVG goes; LibreOffice gets the sanitised text", async (from) => {
    const name = from === "docx" ? "word/media/image1.svg" : "Pictures/image1.svg";
    const { request, removed } = await prepare(docx([{ name, data: hostileSvg(base, markers) }]), from);
    const out = part(request.bytes, name);
    expect(out).not.toMatch(/127\.0\.0\.1|file:|@import|xml-stylesheet/);
    expect(out).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(out).toContain('<rect width="96" height="48" fill="#d0d0d0"/>');
    expect(removed).toEqual([
      `${name}: processing instruction xml-stylesheet`,
      `${name}: style (loads from outside)`,
      `${name}: image @xlink:href`,
      `${name}: image @href`,
      `${name}: rect @fill`,
      `${name}: use @xlink:href`,
    ]);
  });

  it("finds an SVG by its bytes under another name (LibreOffice detects the format), and leaves other media alone", async () => {
    const svg = `<?xml version="1.0"?><!-- drawn --><svg:svg xmlns:svg="http://www.w3.org/2000/svg"><svg:image href="${base}/x.png"/></svg:svg>`;
    const { request, removed } = await prepare(
      docx([
        { name: "word/media/image1.png", data: svg },
        { name: "word/media/notes.txt", data: "<p>svg</p>" },
      ]),
    );
    expect(removed).toEqual(["word/media/image1.png: image @href"]);
    expect(part(request.bytes, "word/media/image1.png")).not.toContain(base);
    expect(part(request.bytes, "word/media/notes.txt")).toBe("<p>svg</p>");
    // LibreOffice's detector takes any "<svg" near the start: so does Signet, except the ODF svg: names of an OpenDocument's own parts.
    expect(svgPartKind("word/document.xml", Buffer.from('<?xml version="1.0"?><w:document><svg:title>x</svg:title></w:document>'))).toBe("svg");
    expect(svgPartKind("content.xml", Buffer.from('<office:document-content xmlns:svg="urn:svg"><svg:desc/></office:document-content>'), true)).toBeUndefined();
    expect(svgPartKind("content.xml", Buffer.from('<office:document-content><svg xmlns="http://www.w3.org/2000/svg"/></office:document-content>'), true)).toBe(
      "svg",
    );
    expect(svgPartKind("Pictures/x.xml", Buffer.from("<x><svg:desc/></x>"), true)).toBe("svg");
  });

  // Each of these reads a local file in LibreOffice 7.4 when it reaches it unchanged (issue 36).
  const wrapped = (inner: string) => `<x:wrap xmlns:x="urn:x">${inner}</x:wrap>`;
  const reading = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="37" height="23"><image width="37" height="23" xlink:href="file:///tmp/canary.png"/></svg>`;
  it.each([
    ["nested in other XML, named .png", "word/media/image1.png", wrapped(reading)],
    ["without XML declaration, after 1 KB of comment, named .emf", "word/media/image1.emf", `<!--${" ".repeat(1024)}-->${wrapped(reading)}`],
    ["in an HTML wrapper, named .wmf", "word/media/image1.wmf", `<html><body>${reading}</body></html>`],
    ["upper case, named .jpeg", "word/media/image1.jpeg", wrapped(reading.replace(/<svg/g, "<SVG").replace("</svg>", "</SVG>"))],
    ["named .xml", "word/media/image1.xml", wrapped(reading)],
  ])("refuses an SVG %s (the sanitiser reads no SVG under another root): 422 naming the part", async (_, name, data) => {
    for (const from of ["docx", "odt"] as const) {
      const error = await expectSignetError(prepare(docx([{ name, data }]), from), "INVALID_DOCUMENT");
      expect(error.message).toContain(`part ${name} is an SVG picture Signet does not pass on (the root element must be <svg`);
    }
  });

  it("sanitises a plain SVG under any name and refuses a gzip-compressed one under any name (svgz)", async () => {
    const { request, removed } = await prepare(docx([{ name: "word/media/image1.png", data: reading }]));
    expect(removed).toEqual(["word/media/image1.png: image @xlink:href"]);
    expect(part(request.bytes, "word/media/image1.png")).not.toContain("file:");
    for (const name of ["word/media/image1.png", "ppt/media/image1.wmf", "Pictures/1.gif"]) {
      const error = await expectSignetError(prepare(docx([{ name, data: gzipSync(wrapped(reading)) }])), "INVALID_DOCUMENT");
      expect(error.message).toContain(`part ${name} is a compressed SVG (svgz)`);
    }
  });

  it("leaves a real PNG with '<svg' in its metadata alone (LibreOffice reads it by its signature)", async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("tEXtComment<svg></svg>")]);
    expect(svgPartKind("word/media/image1.png", png)).toBeUndefined();
  });

  it("passes a document without SVG on byte for byte", async () => {
    const bytes = docx([{ name: "word/media/image1.txt", data: "plain" }]);
    expect((await prepare(bytes)).request.bytes).toBe(bytes);
  });

  it("refuses an SVG declaring entities (422 INVALID_DOCUMENT naming the part)", async () => {
    const svg = `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>`;
    const error = await expectSignetError(prepare(docx([{ name: "word/media/image1.svg", data: svg }])), "INVALID_DOCUMENT");
    expect(error.message).toBe(
      "The DOCX part word/media/image1.svg is an SVG picture Signet does not pass on (it declares entities or a document type with an internal subset, which Signet refuses for safety); save the picture again without it, or insert it as a PNG, and upload the document again.",
    );
  });

  it.each([
    ['width="60000" height="60000"', "60000 x 60000"],
    ['viewBox="0 0 20000 20000"', "20000 x 20000"],
    ['width="100in" height="200in"', "9600 x 19200"],
    ['width="20000" viewBox="0 0 1 1"', "20000 x 20000"],
  ])("refuses an SVG declaring %s with 413 IMAGE_TOO_LARGE naming the part", async (size, pixels) => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" ${size}><rect width="1" height="1"/></svg>`;
    const error = await expectSignetError(prepare(docx([{ name: "word/media/image1.svg", data: svg }])), "IMAGE_TOO_LARGE");
    expect(error.message).toContain(`The image word/media/image1.svg is ${pixels} pixels`);
  });

  it("refuses an SVG part over the image limit before parsing it (413 PAYLOAD_TOO_LARGE naming the part and the limit); one at the limit passes", async () => {
    const small = { ...limits, maxSvgBytes: 4096 };
    const padded = (bytes: number) => SVG.replace("<rect", `<!--${"x".repeat(bytes - SVG.length - 7)}--><rect`);
    expect(padded(4096)).toHaveLength(4096);
    const ok = await prepareOfficeInput({ bytes: docx([{ name: "word/media/image1.svg", data: padded(4096) }]), from: "docx", to: "pdf" }, small);
    expect(part(ok.request.bytes, "word/media/image1.svg")).toContain("<rect");
    const refused = prepareOfficeInput({ bytes: docx([{ name: "word/media/image1.svg", data: padded(4097) }]), from: "docx", to: "pdf" }, small);
    const error = await expectSignetError(refused, "PAYLOAD_TOO_LARGE");
    expect(error.message).toBe(
      "The DOCX part word/media/image1.svg is an SVG picture larger than the 4 KB image limit; insert it as a PNG or a smaller SVG and upload the document again.",
    );
  });

  it("counts an image embedded in the SVG against the limit", async () => {
    const png = Buffer.alloc(33);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
    png.writeUInt32BE(13, 8);
    png.write("IHDR", 12, "latin1");
    png.writeUInt32BE(50_000, 16);
    png.writeUInt32BE(50_000, 20);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image width="10" height="10" href="data:image/png;base64,${png.toString("base64")}"/></svg>`;
    const error = await expectSignetError(prepare(docx([{ name: "word/media/image1.svg", data: svg }])), "IMAGE_TOO_LARGE");
    expect(error.message).toContain("The image embedded in word/media/image1.svg is 50000 x 50000 pixels");
  });

  it("refuses a compressed SVG (svgz), by name or by its inflated bytes, and leaves other gzip media (.emz) alone", async () => {
    for (const name of ["word/media/image1.svgz", "word/media/image1.emz"]) {
      const error = await expectSignetError(prepare(docx([{ name, data: gzipSync(SVG) }])), "INVALID_DOCUMENT");
      expect(error.message).toContain(`The DOCX part ${name} is a compressed SVG (svgz)`);
    }
    const emz = gzipSync(Buffer.alloc(4096, 1));
    expect((await prepare(docx([{ name: "word/media/image1.emz", data: emz }]))).removed).toEqual([]);
  });
});
