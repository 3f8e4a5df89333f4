// The heaviest work the office input checks do: a small DOCX whose document.xml unpacks to tens of
// megabytes full of fields and link attributes, all decoded and rewritten before LibreOffice sees it.
// For the health-during-check test and bench:office-input.
import PizZip from "pizzip";
import { pngDeclaring } from "#test/helpers/convert-fixtures.ts";
import { buildDocx, p, run } from "#test/helpers/docx-builder.ts";

// One paragraph exercising every rewrite the checks make: a complex field and a simple one (both
// kept, PAGE computes inside the document), a VML picture with a src (removed), an INCLUDEPICTURE.
const UNIT =
  p(
    '<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r>' +
      '<w:r><w:t>1</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r><w:fldSimple w:instr=" NUMPAGES "><w:r><w:t>2</w:t></w:r></w:fldSimple>',
  ) +
  p(
    `${run("lorem ipsum dolor sit amet")}<w:r><w:pict><v:shape style="width:1pt;height:1pt"><v:imagedata src="http://127.0.0.1:9/x.png"/></v:shape></w:pict></w:r>`,
  ) +
  p('<w:fldSimple w:instr=" INCLUDEPICTURE &quot;http://127.0.0.1:9/y.png&quot; "><w:r><w:t>picture</w:t></w:r></w:fldSimple>');

/**
 * heavyFieldsDocx is a DOCX (about 0.1 MB per 40 MB of XML) whose document.xml is about `xmlBytes`
 * of fields, VML link attributes and INCLUDEPICTURE fields. With `hugeImage` it also holds a PNG
 * declaring 60000 x 60000 pixels, read after the XML is rewritten: the checks then end in 413
 * IMAGE_TOO_LARGE and LibreOffice never runs, so a request's time is the checks' time.
 */
export function heavyFieldsDocx(xmlBytes: number, hugeImage = true): Buffer {
  const docx = buildDocx({ body: UNIT.repeat(Math.max(1, Math.floor(xmlBytes / UNIT.length))) });
  if (!hugeImage) return docx;
  const zip = new PizZip(docx);
  zip.file("word/media/image1.png", pngDeclaring(60000, 60000, 1024));
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

const RTF_UNIT =
  String.raw`{\field{\*\fldinst { PAGE }}{\fldrslt 1}}{\field{\*\fldinst {INCLUDEPICTURE "http://127.0.0.1:9/z.png"}}{\fldrslt picture}} lorem ipsum dolor sit amet\par ` +
  "\n";

/** heavyRtf is an RTF of about `bytes` of fields (INCLUDEPICTURE among them, neutralised), ending in a picture declaring 60000 x 60000 pixels (413 after the scan). */
export function heavyRtf(bytes: number): Buffer {
  const png = pngDeclaring(60000, 60000, 1024).toString("hex");
  const body = RTF_UNIT.repeat(Math.max(1, Math.floor(bytes / RTF_UNIT.length)));
  return Buffer.from(String.raw`{\rtf1\ansi\deff0{\fonttbl{\f0 Times;}}` + body + String.raw`{\pict\pngblip\picw100\pich100 ` + png + "}}", "latin1");
}
