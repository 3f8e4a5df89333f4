// Documents that make LibreOffice reach outside the document: each one points at a
// loopback listener (`base`, http://127.0.0.1:<port>) or at a marker file on this machine, in
// one of the ways LibreOffice 7.4 follows (or could follow). Written by hand: zip + XML, RTF text.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { SourceFormat } from "#domain/documents/formats.ts";
import { solidPng } from "#test/helpers/convert-fixtures.ts";
import { buildZip } from "#test/helpers/zip-builder.ts";

/** Markers are local files a vector points at: their content must never reach an output. */
export interface Markers {
  /** A text file holding `text`. */
  textPath: string;
  /** A 37 x 23 PNG (a size no vector image has). */
  imagePath: string;
  text: string;
}

/** writeMarkers writes the marker files into dir. */
export function writeMarkers(dir: string): Markers {
  const text = "SIGNET-LOCAL-MARKER-7f3a9c";
  const textPath = join(dir, "marker.txt");
  const imagePath = join(dir, "marker.png");
  writeFileSync(textPath, `${text}\n`);
  writeFileSync(imagePath, solidPng(37, 23, [10, 200, 10]));
  return { textPath, imagePath, text };
}

/** Vector is one document reaching outside itself; `text` is a line of its own that must survive. */
export interface Vector {
  name: string;
  from: SourceFormat;
  bytes: Buffer;
  text: string;
}

/** W, R and RELS are the WordprocessingML, relationship and package-relationship namespaces. */
export const W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
export const R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
export const RELS = "http://schemas.openxmlformats.org/package/2006/relationships";
/** NAMESPACES declares the prefixes a document.xml of these vectors uses (w, r, wp, a, pic, v, o). */
export const NAMESPACES = [
  `xmlns:w="${W}"`,
  `xmlns:r="${R}"`,
  'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"',
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"',
  'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"',
  'xmlns:v="urn:schemas-microsoft-com:vml"',
  'xmlns:o="urn:schemas-microsoft-com:office:office"',
].join(" ");

const para = (text: string) => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

interface DocxVector {
  body: string;
  /** Relationships of word/document.xml beyond styles: [id, type (last segment), target, external]. */
  rels?: Rel[];
  /** word/settings.xml body and its relationships. */
  settings?: { body: string; rels: Rel[] };
  /** Further parts (pictures under word/media/). */
  parts?: Array<{ name: string; data: string }>;
}

/** Rel is a relationship: [id, type (last segment), target, external (TargetMode="External"), target already written as XML (character references kept)]. */
type Rel = [string, string, string, boolean?, "xml"?];

function relsXml(rels: Rel[]): string {
  const items = rels.map(
    ([id, type, target, external = true, written]) =>
      `<Relationship Id="${id}" Type="${R}/${type}" Target="${written ? target : target.replace(/&/g, "&amp;")}"${external ? ' TargetMode="External"' : ""}/>`,
  );
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="${RELS}">${items.join("")}</Relationships>`;
}

function docx(spec: DocxVector): Buffer {
  const settingsRel: Rel[] = spec.settings ? [["rIdSettings", "settings", "settings.xml", false]] : [];
  const files = [
    {
      name: "[Content_Types].xml",
      data:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="svg" ContentType="image/svg+xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        (spec.settings
          ? '<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>'
          : "") +
        "</Types>",
    },
    { name: "_rels/.rels", data: relsXml([["rId1", "officeDocument", "word/document.xml", false]]) },
    { name: "word/_rels/document.xml.rels", data: relsXml([...settingsRel, ...(spec.rels ?? [])]) },
    {
      name: "word/document.xml",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${NAMESPACES}><w:body>${spec.body}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`,
    },
  ];
  if (spec.settings) {
    files.push({
      name: "word/settings.xml",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:settings ${NAMESPACES}>${spec.settings.body}</w:settings>`,
    });
    files.push({ name: "word/_rels/settings.xml.rels", data: relsXml(spec.settings.rels) });
  }
  files.push(...(spec.parts ?? []));
  return buildZip(files);
}

function blipPicture(attribute: string): string {
  const cx = 96 * 9525;
  const cy = 48 * 9525;
  return `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="1" name="Picture 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="linked.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip ${attribute}/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
}

function simpleField(instruction: string, result: string): string {
  return `<w:p><w:fldSimple w:instr="${instruction.replace(/"/g, "&quot;")}"><w:r><w:t>${result}</w:t></w:r></w:fldSimple></w:p>`;
}

function complexField(instruction: string, result: string): string {
  // The instruction split over two runs, as Word writes it after an edit.
  const half = Math.floor(instruction.length / 2);
  const instr = (text: string) => `<w:r><w:instrText xml:space="preserve">${text.replace(/"/g, "&quot;")}</w:instrText></w:r>`;
  return `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>${instr(instruction.slice(0, half))}${instr(instruction.slice(half))}<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>${result}</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`;
}

const ODT_NAMESPACES = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
].join(" ");

function odt(automaticStyles: string, body: string, parts: Array<{ name: string; data: string; type: string }> = []): Buffer {
  const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ODT_NAMESPACES} office:version="1.3"><office:automatic-styles>${automaticStyles}</office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`;
  const manifest =
    '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">' +
    '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>' +
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>' +
    parts.map((part) => `<manifest:file-entry manifest:full-path="${part.name}" manifest:media-type="${part.type}"/>`).join("") +
    "</manifest:manifest>";
  return buildZip([
    { name: "mimetype", data: "application/vnd.oasis.opendocument.text", stored: true },
    { name: "content.xml", data: content },
    { name: "META-INF/manifest.xml", data: manifest },
    ...parts,
  ]);
}

const frame = (inner: string) =>
  `<text:p><draw:frame draw:name="F1" text:anchor-type="as-char" svg:width="2cm" svg:height="1cm">${inner}</draw:frame></text:p>`;

/**
 * hostileSvg is an SVG picture pointing out of itself every way an SVG reader may follow: <image>
 * to the listener and to the marker picture, a style sheet @import, url() paints, a <use> of an
 * outside document, an xml-stylesheet instruction.
 */
export function hostileSvg(base: string, markers: Markers): string {
  return (
    `<?xml version="1.0" encoding="UTF-8"?><?xml-stylesheet type="text/css" href="${base}/svg-stylesheet.css"?>` +
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="96" height="48" viewBox="0 0 96 48">' +
    `<style>@import url(${base}/svg-import.css); .p { fill: url(${base}/svg-paint.svg#p); }</style>` +
    '<rect width="96" height="48" fill="#d0d0d0"/>' +
    `<image x="0" y="0" width="41" height="29" xlink:href="${base}/svg-image.png"/>` +
    `<image x="48" y="0" width="37" height="23" href="${pathToFileURL(markers.imagePath).href}"/>` +
    `<rect class="p" x="0" y="30" width="20" height="10" fill="url(${base}/svg-fill.svg#p)"/>` +
    `<use xlink:href="${base}/svg-use.svg#a"/></svg>`
  );
}

/**
 * vectors lists every way in with `base` the listener's URL and `markers` the local
 * files. Each keeps a line of text of its own (`text`), which must come out.
 */
export function vectors(base: string, markers: Markers): Vector[] {
  const fileText = pathToFileURL(markers.textPath).href;
  const fileImage = pathToFileURL(markers.imagePath).href;
  const list: Vector[] = [];
  const add = (name: string, from: SourceFormat, make: (text: string) => Buffer | string) => {
    const text = `Vector ${name.replace(/[^a-z0-9]+/gi, " ").trim()} keeps its text`;
    const bytes = make(text);
    list.push({ name, from, bytes: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes, "utf8"), text });
  };

  // DOCX
  add("docx picture a:blip r:link (http)", "docx", (text) =>
    docx({ body: para(text) + blipPicture('r:link="rIdLink"'), rels: [["rIdLink", "image", `${base}/docx-blip-link.png`]] }),
  );
  add("docx picture a:blip r:embed to an external target (file)", "docx", (text) =>
    docx({ body: para(text) + blipPicture('r:embed="rIdEmbed"'), rels: [["rIdEmbed", "image", fileImage]] }),
  );
  add("docx VML picture (http)", "docx", (text) =>
    docx({
      body: `${para(text)}<w:p><w:r><w:pict><v:shape id="s1" style="width:96pt;height:48pt"><v:imagedata r:id="rIdVml" o:title="linked"/></v:shape></w:pict></w:r></w:p>`,
      rels: [["rIdVml", "image", `${base}/docx-vml.png`]],
    }),
  );
  add("docx external OLE object (http)", "docx", (text) =>
    docx({
      body: `${para(text)}<w:p><w:r><w:object><v:shape id="ole1" style="width:96pt;height:48pt"><v:imagedata r:id="rIdOleImg"/></v:shape><o:OLEObject Type="Link" ProgID="Word.Document.12" ShapeID="ole1" DrawAspect="Content" r:id="rIdOle" UpdateMode="Always"/></w:object></w:r></w:p>`,
      rels: [
        ["rIdOle", "oleObject", `${base}/docx-ole.docx`],
        ["rIdOleImg", "image", `${base}/docx-ole-preview.png`],
      ],
    }),
  );
  add("docx attached template (http)", "docx", (text) =>
    docx({ body: para(text), settings: { body: '<w:attachedTemplate r:id="rIdTpl"/>', rels: [["rIdTpl", "attachedTemplate", `${base}/docx-template.dotx`]] } }),
  );
  add("docx subDocument (http)", "docx", (text) =>
    docx({ body: `${para(text)}<w:subDoc r:id="rIdSub"/>`, rels: [["rIdSub", "subDocument", `${base}/docx-subdoc.docx`]] }),
  );
  add("docx altChunk (http)", "docx", (text) =>
    docx({ body: `${para(text)}<w:altChunk r:id="rIdChunk"/>`, rels: [["rIdChunk", "aFChunk", `${base}/docx-altchunk.html`]] }),
  );
  add("docx altChunk (file)", "docx", (text) => docx({ body: `${para(text)}<w:altChunk r:id="rIdChunk"/>`, rels: [["rIdChunk", "aFChunk", fileText]] }));
  add("docx INCLUDEPICTURE field (http)", "docx", (text) =>
    docx({ body: para(text) + simpleField(` INCLUDEPICTURE "${base}/docx-includepicture.png" \\d `, "picture") }),
  );
  add("docx INCLUDETEXT field (file)", "docx", (text) => docx({ body: para(text) + complexField(` INCLUDETEXT "${markers.textPath}" `, "included") }));
  add("docx LINK field (http)", "docx", (text) =>
    docx({ body: para(text) + complexField(` LINK Word.Document.12 "${base}/docx-link.docx" "" \\a \\t `, "linked") }),
  );

  // ODT
  add("odt draw:image xlink:href (http)", "odt", (text) =>
    odt(
      "",
      `<text:p>${text}</text:p>${frame(`<draw:image xlink:href="${base}/odt-image.png" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>`)}`,
    ),
  );
  add("odt draw:image xlink:href (file)", "odt", (text) =>
    odt("", `<text:p>${text}</text:p>${frame(`<draw:image xlink:href="${fileImage}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>`)}`),
  );
  add("odt draw:image xlink:href outside the package (../)", "odt", (text) =>
    odt("", `<text:p>${text}</text:p>${frame('<draw:image xlink:href="../marker.png" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>')}`),
  );
  add("odt paragraph background image (http)", "odt", (text) =>
    odt(
      `<style:style style:name="P1" style:family="paragraph"><style:paragraph-properties><style:background-image xlink:href="${base}/odt-background.png" xlink:type="simple" xlink:actuate="onLoad" style:repeat="repeat"/></style:paragraph-properties></style:style>`,
      `<text:p text:style-name="P1">${text}</text:p>`,
    ),
  );
  add("odt list bullet image (http)", "odt", (text) =>
    odt(
      `<text:list-style style:name="L1"><text:list-level-style-image text:level="1" xlink:href="${base}/odt-bullet.png" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"><style:list-level-properties fo:width="0.4cm" fo:height="0.4cm"/></text:list-level-style-image></text:list-style>`,
      `<text:list text:style-name="L1"><text:list-item><text:p>${text}</text:p></text:list-item></text:list>`,
    ),
  );
  add("odt draw:object link (http)", "odt", (text) =>
    odt(
      "",
      `<text:p>${text}</text:p>${frame(`<draw:object xlink:href="${base}/odt-object.odt" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>`)}`,
    ),
  );
  add("odt section source (file)", "odt", (text) =>
    odt(
      "",
      `<text:p>${text}</text:p><text:section text:name="S1"><text:section-source xlink:href="${fileText}" xlink:type="simple" xlink:show="embed"/></text:section>`,
    ),
  );
  add("odt section source (http)", "odt", (text) =>
    odt(
      "",
      `<text:p>${text}</text:p><text:section text:name="S1"><text:section-source xlink:href="${base}/odt-section.html" xlink:type="simple" xlink:show="embed"/></text:section>`,
    ),
  );

  // SVG pictures inside the package, read by LibreOffice's own SVG reader.
  const svg = hostileSvg(base, markers);
  add("docx SVG picture pointing out (http, file, @import, url())", "docx", (text) =>
    docx({
      body: para(text) + blipPicture('r:embed="rIdSvg"'),
      rels: [["rIdSvg", "image", "media/image1.svg", false]],
      parts: [{ name: "word/media/image1.svg", data: svg }],
    }),
  );
  add("odt SVG picture pointing out (http, file, @import, url())", "odt", (text) =>
    odt(
      "",
      `<text:p>${text}</text:p>${frame('<draw:image xlink:href="Pictures/image1.svg" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>')}`,
      [{ name: "Pictures/image1.svg", data: svg, type: "image/svg+xml" }],
    ),
  );

  // RTF
  const rtf = (text: string, field: string) => `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Arial;}}\\pard ${text}\\par ${field}\\par}`;
  add("rtf INCLUDEPICTURE field (http)", "rtf", (text) =>
    rtf(text, `{\\field{\\*\\fldinst INCLUDEPICTURE "${base}/rtf-includepicture.png" \\\\d}{\\fldrslt picture}}`),
  );
  add("rtf INCLUDEPICTURE field split over groups (http)", "rtf", (text) =>
    rtf(text, `{\\field{\\*\\fldinst {INCLUDE}{PICTURE "${base}/rtf-split.png" \\\\d}}{\\fldrslt picture}}`),
  );
  add("rtf INCLUDETEXT field (file)", "rtf", (text) => rtf(text, `{\\field{\\*\\fldinst INCLUDETEXT "${markers.textPath}"}{\\fldrslt included}}`));
  add("rtf LINK field (http)", "rtf", (text) => rtf(text, `{\\field{\\*\\fldinst LINK Word.Document.8 "${base}/rtf-link.doc" "" \\\\a}{\\fldrslt linked}}`));

  // HTML and Markdown
  add(
    "html remote image, stylesheet and background",
    "html",
    (text) =>
      `<html><head><link rel="stylesheet" href="${base}/html.css"></head><body background="${base}/html-body.png"><p style="background:url(${base}/html-style.png)">${text}</p><img src="${base}/html-img.png" alt="remote"><img src="${fileImage}" alt="local"></body></html>`,
  );
  add("markdown remote image", "md", (text) => `# ${text}\n\n![remote](${base}/md-img.png)\n\n![local](${fileImage})\n\n<img src="${base}/md-raw.png">\n`);
  encodedVectors(base, markers, add);
  return list;
}

/**
 * spelled writes a URL as an attacker would hide it from a check that reads the raw XML: its first
 * letter as a decimal ("dec") or hexadecimal ("hex") character reference, its colon as a reference
 * ("colon"), or its scheme in mixed case ("mixed"). An XML parser (LibreOffice's) reads each as the URL.
 */
function spelled(url: string, how: "dec" | "hex" | "colon" | "mixed"): string {
  const scheme = url.slice(0, url.indexOf(":"));
  const rest = url.slice(scheme.length);
  if (how === "dec") return `&#${url.charCodeAt(0)};${url.slice(1)}`;
  if (how === "hex") return `&#x${url.charCodeAt(0).toString(16).toUpperCase()};${url.slice(1)}`;
  if (how === "colon") return `${scheme}&#58;${rest.slice(1)}`;
  return `${[...scheme].map((char, index) => (index % 2 ? char.toLowerCase() : char.toUpperCase())).join("")}${rest}`;
}

/**
 * encodedVectors are the carriers above again with their URL written with character references,
 * entities and mixed-case schemes (file: as FILE:), so that a check reading raw XML, or comparing
 * schemes case-sensitively, misses them while LibreOffice follows them.
 */
function encodedVectors(base: string, markers: Markers, add: AddVector): void {
  encodedDocxVectors(base, pathToFileURL(markers.imagePath).href, add);
  encodedOdtVectors(base, markers, add);
  encodedSvgAndMarkupVectors(base, pathToFileURL(markers.imagePath).href, add);
}

/** AddVector adds one vector, made around its own line of text. */
type AddVector = (name: string, from: SourceFormat, make: (text: string) => Buffer | string) => void;

/** encodedDocxVectors: relationships and fields with references, mixed case and FILE:. */
function encodedDocxVectors(base: string, fileImage: string, add: AddVector): void {
  // DOCX relationships: in internal mode too (no TargetMode), where only the scheme says it leaves the package.
  add("docx picture r:link, target &#104;ttp (decimal reference, no TargetMode)", "docx", (text) =>
    docx({ body: para(text) + blipPicture('r:link="rIdLink"'), rels: [["rIdLink", "image", spelled(`${base}/enc-blip-dec.png`, "dec"), false, "xml"]] }),
  );
  add("docx picture r:embed, target &#x48;tTp (hex reference, mixed case, no TargetMode)", "docx", (text) =>
    docx({
      body: para(text) + blipPicture('r:embed="rIdEmbed"'),
      rels: [["rIdEmbed", "image", spelled(spelled(`${base}/enc-blip-hex.png`, "mixed"), "hex"), false, "xml"]],
    }),
  );
  add("docx picture r:embed, target FILE&#58; (no TargetMode)", "docx", (text) =>
    docx({
      body: para(text) + blipPicture('r:embed="rIdEmbed"'),
      rels: [["rIdEmbed", "image", spelled(fileImage.replace("file:", "FILE:"), "colon"), false, "xml"]],
    }),
  );
  add("docx VML picture, target hTtP (mixed case, no TargetMode)", "docx", (text) =>
    docx({
      body: `${para(text)}<w:p><w:r><w:pict><v:shape id="s1" style="width:96pt;height:48pt"><v:imagedata r:id="rIdVml" o:title="linked"/></v:shape></w:pict></w:r></w:p>`,
      rels: [["rIdVml", "image", spelled(`${base}/enc-vml.png`, "mixed"), false]],
    }),
  );
  // DOCX fields: the field name and its URL written with references, in w:instr and in w:instrText.
  add("docx INCLUDEPICTURE field in w:instr, &#73;NCLUDEPICTURE &#104;ttp", "docx", (text) =>
    docx({
      body: `${para(text)}<w:p><w:fldSimple w:instr=" &#73;NCLUDEPICTURE &quot;${spelled(`${base}/enc-field-simple.png`, "dec")}&quot; \\d "><w:r><w:t>picture</w:t></w:r></w:fldSimple></w:p>`,
    }),
  );
  add("docx INCLUDEPICTURE field in w:instrText, &#x49;ncludePicture &#x68;ttp", "docx", (text) =>
    docx({
      body: `${para(text)}<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> &#x49;ncludePicture "${spelled(`${base}/enc-field-complex.png`, "hex")}" \\d </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>picture</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
    }),
  );
}

const odtImage = (href: string) => frame(`<draw:image xlink:href="${href}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>`);

/** encodedOdtVectors: xlink:href in every ODT carrier, with references and mixed case. */
function encodedOdtVectors(base: string, markers: Markers, add: AddVector): void {
  const fileImage = pathToFileURL(markers.imagePath).href;
  const image = odtImage;
  add("odt draw:image xlink:href &#104;ttp (decimal reference)", "odt", (text) =>
    odt("", `<text:p>${text}</text:p>${image(spelled(`${base}/enc-odt-dec.png`, "dec"))}`),
  );
  add("odt draw:image xlink:href &#x48;TtP (hex reference, mixed case)", "odt", (text) =>
    odt("", `<text:p>${text}</text:p>${image(spelled(spelled(`${base}/enc-odt-hex.png`, "mixed"), "hex"))}`),
  );
  add("odt draw:image xlink:href FiLe&#58; (mixed case, colon as a reference)", "odt", (text) =>
    odt("", `<text:p>${text}</text:p>${image(spelled(spelled(fileImage, "mixed"), "colon"))}`),
  );
  add("odt paragraph background image &#104;ttp", "odt", (text) =>
    odt(
      `<style:style style:name="P1" style:family="paragraph"><style:paragraph-properties><style:background-image xlink:href="${spelled(`${base}/enc-odt-background.png`, "dec")}" xlink:type="simple" xlink:actuate="onLoad" style:repeat="repeat"/></style:paragraph-properties></style:style>`,
      `<text:p text:style-name="P1">${text}</text:p>`,
    ),
  );
  add("odt paragraph background image hTtP (mixed case)", "odt", (text) =>
    odt(
      `<style:style style:name="P1" style:family="paragraph"><style:paragraph-properties><style:background-image xlink:href="${spelled(`${base}/enc-odt-background-mixed.png`, "mixed")}" xlink:type="simple" xlink:actuate="onLoad" style:repeat="repeat"/></style:paragraph-properties></style:style>`,
      `<text:p text:style-name="P1">${text}</text:p>`,
    ),
  );
  add("odt list bullet image HtTp&#58;", "odt", (text) =>
    odt(
      `<text:list-style style:name="L1"><text:list-level-style-image text:level="1" xlink:href="${spelled(spelled(`${base}/enc-odt-bullet.png`, "mixed"), "colon")}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"><style:list-level-properties fo:width="0.4cm" fo:height="0.4cm"/></text:list-level-style-image></text:list-style>`,
      `<text:list text:style-name="L1"><text:list-item><text:p>${text}</text:p></text:list-item></text:list>`,
    ),
  );
  add("odt section source &#x66;ile (hex reference)", "odt", (text) =>
    odt(
      "",
      `<text:p>${text}</text:p><text:section text:name="S1"><text:section-source xlink:href="${spelled(pathToFileURL(markers.textPath).href, "hex")}" xlink:type="simple" xlink:show="embed"/></text:section>`,
    ),
  );
}

/** encodedSvgAndMarkupVectors: SVG hrefs (in a DOCX and an ODT), HTML and Markdown src, with references and mixed case. */
function encodedSvgAndMarkupVectors(base: string, fileImage: string, add: AddVector): void {
  const svg =
    '<?xml version="1.0" encoding="UTF-8"?><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="96" height="48" viewBox="0 0 96 48">' +
    '<rect width="96" height="48" fill="#d0d0d0"/>' +
    `<image x="0" y="0" width="41" height="29" xlink:href="${spelled(`${base}/enc-svg-dec.png`, "dec")}"/>` +
    `<image x="0" y="0" width="41" height="29" href="${spelled(spelled(`${base}/enc-svg-mixed.png`, "mixed"), "colon")}"/>` +
    `<image x="48" y="0" width="37" height="23" xlink:href="${spelled(fileImage.replace("file:", "FILE:"), "hex")}"/></svg>`;
  add("docx SVG picture, hrefs &#104;ttp, HtTp&#58;, &#x46;ILE", "docx", (text) =>
    docx({
      body: para(text) + blipPicture('r:embed="rIdSvg"'),
      rels: [["rIdSvg", "image", "media/image1.svg", false]],
      parts: [{ name: "word/media/image1.svg", data: svg }],
    }),
  );
  add("odt SVG picture, hrefs &#104;ttp, HtTp&#58;, &#x46;ILE", "odt", (text) =>
    odt("", `<text:p>${text}</text:p>${odtImage("Pictures/image1.svg")}`, [{ name: "Pictures/image1.svg", data: svg, type: "image/svg+xml" }]),
  );
  // HTML and Markdown: src with references and mixed case.
  add(
    "html img src &#104;ttp, HtTp&#58;, &#x46;ILE",
    "html",
    (text) =>
      `<html><body><p>${text}</p><img src="${spelled(`${base}/enc-html-dec.png`, "dec")}" alt="a"><IMG SRC="${spelled(spelled(`${base}/enc-html-mixed.png`, "mixed"), "colon")}" alt="b"><img src="${spelled(fileImage.replace("file:", "FILE:"), "hex")}" alt="c"></body></html>`,
  );
  add(
    "md img &#104;ttp",
    "md",
    (text) => `# ${text}\n\n<img src="${spelled(`${base}/enc-md-dec.png`, "dec")}">\n\n![x](${spelled(`${base}/enc-md-mixed.png`, "mixed")})\n`,
  );
}

/**
 * linkedPictureOdt is an ODT holding `text` and one picture linked to `url`, anchored as a
 * character ("as-char": LibreOffice saves it to .doc as an INCLUDEPICTURE field and a PICF naming
 * the URL) or to the paragraph ("paragraph": OfficeArt properties, no field).
 */
export function linkedPictureOdt(text: string, url: string, anchor: "as-char" | "paragraph"): Buffer {
  return odt(
    "",
    `<text:p>${text}</text:p><text:p><draw:frame draw:name="F1" text:anchor-type="${anchor}" svg:width="2cm" svg:height="1cm"><draw:image xlink:href="${url}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`,
  );
}
