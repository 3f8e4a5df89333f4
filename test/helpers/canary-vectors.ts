// Documents that point LibreOffice at local files in a way the input checks of issue 36 did not
// catch: a DOCX picture part (named .png) holding an SVG nested in other XML, whose <image> names
// a file:// path. LibreOffice's detector takes the `<svg` near the part's start and its SVG reader
// draws the nested <svg>, reading the file: a picture is drawn, a PDF's page is drawn with its text.
import { pathToFileURL } from "node:url";
import { NAMESPACES, R, RELS, W } from "#test/helpers/office-vectors.ts";
import { buildZip } from "#test/helpers/zip-builder.ts";

/** nestedSvg is the picture part: an SVG inside a foreign wrapper element, its <image> reading `path`. */
function nestedSvg(path: string): string {
  return (
    '<x:wrap xmlns:x="urn:signet:wrap"><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="120" viewBox="0 0 200 120">' +
    `<image x="0" y="0" width="200" height="120" xlink:href="${pathToFileURL(path).href}"/></svg></x:wrap>`
  );
}

function picture(index: number): string {
  const cx = 200 * 9525;
  const cy = 120 * 9525;
  return `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="${index}" name="Picture ${index}"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="${index}" name="image${index}.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdPic${index}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
}

/**
 * nestedSvgDocx is a DOCX with `text` and one picture per path, each a nested SVG reading that
 * file. `comments` adds a word/comments.xml part: the converter hands such a DOCX over to the warm
 * instance as a `--convert-to` job (job-files.ts crashesUnoLoad), the hand-over path.
 */
export function nestedSvgDocx(paths: string[], text: string, options: { comments?: boolean } = {}): Buffer {
  const rels = paths.map((_, i) => `<Relationship Id="rIdPic${i + 1}" Type="${R}/image" Target="media/image${i + 1}.png"/>`).join("");
  const body = `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>${paths.map((_, i) => picture(i + 1)).join("")}`;
  return buildZip([
    {
      name: "[Content_Types].xml",
      data:
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    },
    {
      name: "_rels/.rels",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${R}/officeDocument" Target="word/document.xml"/></Relationships>`,
    },
    {
      name: "word/_rels/document.xml.rels",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="${RELS}">${rels}</Relationships>`,
    },
    {
      name: "word/document.xml",
      data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${NAMESPACES}><w:body>${body}<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`,
    },
    ...paths.map((path, i) => ({ name: `word/media/image${i + 1}.png`, data: nestedSvg(path) })),
    ...(options.comments ? [{ name: "word/comments.xml", data: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:comments xmlns:w="${W}"/>` }] : []),
  ]);
}

/**
 * includePictureRtf is an RTF document with `text` and one INCLUDEPICTURE field per path whose
 * instruction starts with "= " (issue 36: the field check took it for a formula); LibreOffice
 * embeds the file: a PDF's page is drawn and its text stays extractable.
 */
export function includePictureRtf(paths: string[], text: string): Buffer {
  const fields = paths.map((path) => `{\\field{\\*\\fldinst {= INCLUDEPICTURE "${pathToFileURL(path).href}" \\\\d}}{\\fldrslt picture}}\\par`).join("\n");
  return Buffer.from(`{\\rtf1\\ansi ${text}\\par\n${fields}\n}`, "latin1");
}
