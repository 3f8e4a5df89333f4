// Documents that went around the input checks before issue 36 (SVG under other names, RTF and
// binary-file pictures, altChunk documents, .doc fields renamed in their text, spreadsheet formulas):
// each points at a local file (a canary) the way LibreOffice 7.4 follows. Written by hand.
import { pathToFileURL } from "node:url";
import { buildZip } from "#test/helpers/zip-builder.ts";

const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const RELS = "http://schemas.openxmlformats.org/package/2006/relationships";
const TYPES = "http://schemas.openxmlformats.org/package/2006/content-types";

/** readingSvg is an SVG drawing the picture at `path` (a file: URL in an <image>), at the canary's size. */
export function readingSvg(path: string, size = { width: 37, height: 23 }): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${size.width}" height="${size.height}">` +
    `<image width="${size.width}" height="${size.height}" xlink:href="${pathToFileURL(path).href}"/></svg>`
  );
}

/** wrapped puts an SVG inside an element of another namespace, as LibreOffice's SVG reader still draws it. */
export const wrapped = (inner: string) => `<x:wrap xmlns:x="urn:x">${inner}</x:wrap>`;

const para = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

function picture(id: string): string {
  const cx = 37 * 9525 * 4;
  const cy = 23 * 9525 * 4;
  return `<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="1" name="Picture 1"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="1" name="p"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="${id}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
}

interface DocxSpec {
  text: string;
  body?: string;
  rels?: Array<{ id: string; type: string; target: string }>;
  parts?: Array<{ name: string; data: string | Buffer }>;
  dtd?: boolean;
}

/** docx is a minimal Word document: `text` in a paragraph, then `body`, with internal relationships and parts. */
function docx(spec: DocxSpec): Buffer {
  const rels = (spec.rels ?? []).map((rel) => `<Relationship Id="${rel.id}" Type="${R}/${rel.type}" Target="${rel.target}"/>`).join("");
  const doctype = spec.dtd ? '<!DOCTYPE w:document [<!ENTITY e "x">]>' : "";
  return buildZip([
    {
      name: "[Content_Types].xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${TYPES}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Default Extension="svg" ContentType="image/svg+xml"/><Default Extension="docx" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document"/><Default Extension="html" ContentType="text/html"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    },
    {
      name: "_rels/.rels",
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    { name: "word/_rels/document.xml.rels", data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${RELS}">${rels}</Relationships>` },
    {
      name: "word/document.xml",
      data: `<?xml version="1.0" encoding="UTF-8"?>${doctype}<w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>${para(spec.text)}${spec.body ?? ""}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`,
    },
    ...(spec.parts ?? []),
  ]);
}

/** svgNamedPngDocx is a DOCX whose one picture, word/media/image1.png, holds `data` (an SVG, however wrapped). */
export function svgNamedPngDocx(data: string | Buffer, text = "A picture named PNG"): Buffer {
  return docx({
    text,
    body: picture("rIdPic"),
    rels: [{ id: "rIdPic", type: "image", target: "media/image1.png" }],
    parts: [{ name: "word/media/image1.png", data }],
  });
}

/** rtfWithPicture is an RTF document with one \pict whose data is `bytes`, as hex digits or \bin. */
export function rtfWithPicture(bytes: Buffer, encoding: "hex" | "bin", text = "An RTF picture"): Buffer {
  const head = `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Arial;}}\\pard ${text}\\par {\\pict\\pngblip\\picw37\\pich23\\picwgoal555\\pichgoal345 `;
  const data =
    encoding === "hex"
      ? Buffer.from(bytes.toString("hex").replace(/(.{64})/g, "$1\n"), "latin1")
      : Buffer.concat([Buffer.from(`\\bin${bytes.length} `, "latin1"), bytes]);
  return Buffer.concat([Buffer.from(head, "latin1"), data, Buffer.from("}\\par}", "latin1")]);
}

/** docWithSvgPicture overwrites the PNG of a .doc's embedded picture (its OfficeArt BLIP) with an SVG drawing `path`, padded to the same length. */
export function docWithSvgPicture(doc: Buffer, path: string): Buffer {
  const out = Buffer.from(doc);
  const png = out.indexOf(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  if (png < 0) throw new Error("no PNG in the .doc");
  const svg = Buffer.from(readingSvg(path), "latin1");
  out.fill(0x20, png, png + svg.length + 64);
  svg.copy(out, png);
  return out;
}

/** docWithFieldRenamed overwrites a field's name in a .doc's text (UTF-16) with `replacement` of the same length; its field-type byte stays. */
export function docWithFieldRenamed(doc: Buffer, name: string, replacement: string): Buffer {
  if (replacement.length !== name.length) throw new Error("the replacement must keep the length");
  const out = Buffer.from(doc);
  const at = out.indexOf(Buffer.from(name, "utf16le"));
  if (at < 0) throw new Error(`no ${name} in the .doc`);
  out.set(Buffer.from(replacement, "utf16le"), at);
  return out;
}

/**
 * altChunkDocx is a DOCX importing word/afchunk.docx (or .html) through w:altChunk, `depth` levels
 * deep (each inner DOCX imports the next); the innermost holds an SVG picture, a PNG-named part, or
 * declares a DTD.
 */
export function altChunkDocx(spec: { inner: "docx" | "html"; svg?: string; png?: string; dtd?: boolean; depth?: number; text?: string }): Buffer {
  const { depth = 1, text = "Outer document" } = spec;
  const chunk = (target: string) => ({ body: '<w:altChunk r:id="rIdChunk"/>', rels: [{ id: "rIdChunk", type: "aFChunk", target }] });
  if (spec.inner === "html") {
    const html = `<html><body><p>Inner HTML</p>${spec.svg ?? ""}</body></html>`;
    return docx({ text, ...chunk("afchunk.html"), parts: [{ name: "word/afchunk.html", data: html }] });
  }
  let inner: Buffer;
  if (spec.svg) {
    inner = docx({
      text: "Innermost document",
      body: picture("rIdPic"),
      rels: [{ id: "rIdPic", type: "image", target: "media/image1.svg" }],
      parts: [{ name: "word/media/image1.svg", data: spec.svg }],
    });
  } else if (spec.png) inner = svgNamedPngDocx(spec.png, "Innermost document");
  else inner = docx({ text: "Innermost document", ...(spec.dtd ? { dtd: true } : {}) });
  for (let level = 1; level < depth; level++)
    inner = docx({ text: `Level ${depth - level}`, ...chunk("afchunk.docx"), parts: [{ name: "word/afchunk.docx", data: inner }] });
  return docx({ text, ...chunk("afchunk.docx"), parts: [{ name: "word/afchunk.docx", data: inner }] });
}

/** xlsxWithFormula is a one-sheet workbook whose cell B2 holds `f` (an <f> element, as written), with defined names. */
export function xlsxWithFormula(f: string, definedNames = ""): Buffer {
  const main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
  return buildZip([
    {
      name: "[Content_Types].xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="${TYPES}"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>`,
    },
    {
      name: "_rels/.rels",
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${R}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: "xl/workbook.xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${main}" xmlns:r="${R}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets>${definedNames ? `<definedNames>${definedNames}</definedNames>` : ""}</workbook>`,
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${R}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    },
    {
      name: "xl/worksheets/sheet1.xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${main}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Workbook text</t></is></c></row><row r="2"><c r="B2">${f}<v>0</v></c></row></sheetData></worksheet>`,
    },
  ]);
}

/** odsWithFormula is a one-sheet OpenDocument spreadsheet whose first cell's table:formula is `formula`. */
export function odsWithFormula(formula: string): Buffer {
  const content =
    '<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.3"><office:body><office:spreadsheet><table:table table:name="Sheet1"><table:table-row>' +
    `<table:table-cell table:formula="${formula.replace(/"/g, "&quot;")}"><text:p>0</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>`;
  return buildZip([
    { name: "mimetype", data: "application/vnd.oasis.opendocument.spreadsheet", stored: true },
    { name: "content.xml", data: content },
    {
      name: "META-INF/manifest.xml",
      data: '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>',
    },
  ]);
}
