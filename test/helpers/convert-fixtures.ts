// Test documents for the convert feature, written from scratch (XML by hand) or produced by
// LibreOffice from a flat ODF document written here.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { crc32, deflateSync } from "node:zlib";
import PizZip from "pizzip";

const run = promisify(execFile);

/** fixtureText names the strings the fixture DOCX contains, for text assertions. */
export const fixtureText = {
  title: "Quarterly Contract Summary",
  body: "This paragraph is set in Calibri.",
  list: ["First numbered item", "Second numbered item", "Third numbered item"],
  table: [
    ["Cell A1", "Cell B1"],
    ["Cell A2", "Cell B2"],
    ["Cell A3", "Cell B3"],
  ],
  header: "Signet Header Line",
  footer: "Signet Footer Line",
} as const;

/** pngDeclaring is a PNG signature and an IHDR declaring width x height, then `padding` bytes of junk: a header that image checks read, nothing a decoder could draw. */
export function pngDeclaring(width: number, height: number, padding = 0): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write("IHDR", 4, "latin1");
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.set([8, 2, 0, 0, 0], 16);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr, Buffer.alloc(padding, 7)]);
}

/** solidPng encodes a width x height RGB PNG of one colour. */
export function solidPng(width: number, height: number, rgb: [number, number, number] = [200, 30, 30]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, "latin1");
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => rgb[i % 3]!)]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const W =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const DRAWING =
  'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"';

const esc = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;");
const para = (text: string, props = "") => `<w:p>${props ? `<w:pPr>${props}</w:pPr>` : ""}<w:r><w:t xml:space="preserve">${esc(text)}</w:t></w:r></w:p>`;

function imageParagraph(rel: string, widthPx: number, heightPx: number): string {
  const cx = widthPx * 9525;
  const cy = heightPx * 9525;
  return `<w:p><w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="${cx}" cy="${cy}"/><wp:docPr id="1" name="Picture 1"/>
<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="image1.png"/><pic:cNvPicPr/></pic:nvPicPr>
<pic:blipFill><a:blip r:embed="${rel}"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="${cx}" cy="${cy}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
}

/**
 * fixtureDocx builds a DOCX as Word would lay it out: Calibri text (the theme-less default font),
 * a decimal numbered list, a 2x3 bordered table, a header and a footer, and an inline PNG.
 * `paragraphs` adds filler paragraphs (to vary size in benchmarks).
 */
export function fixtureDocx(options: { paragraphs?: number; title?: string } = {}): Buffer {
  const t = fixtureText;
  const filler = Array.from({ length: options.paragraphs ?? 0 }, (_, i) =>
    para(`Filler paragraph ${i + 1}: the parties agree that the terms set out in this document apply to every order placed under it.`),
  ).join("");
  const table = `<w:tbl><w:tblPr><w:tblW w:w="6000" w:type="dxa"/><w:tblBorders><w:top w:val="single" w:sz="4"/><w:left w:val="single" w:sz="4"/><w:bottom w:val="single" w:sz="4"/><w:right w:val="single" w:sz="4"/><w:insideH w:val="single" w:sz="4"/><w:insideV w:val="single" w:sz="4"/></w:tblBorders></w:tblPr>
<w:tblGrid><w:gridCol w:w="3000"/><w:gridCol w:w="3000"/></w:tblGrid>${t.table
    .map((row) => `<w:tr>${row.map((cell) => `<w:tc><w:tcPr><w:tcW w:w="3000" w:type="dxa"/></w:tcPr>${para(cell)}</w:tc>`).join("")}</w:tr>`)
    .join("")}</w:tbl>`;
  const document = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ${W} ${DRAWING}><w:body>
${para(options.title ?? t.title, '<w:pStyle w:val="Heading1"/>')}
${para(t.body)}
${t.list.map((item) => para(item, '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>')).join("")}
${table}
${imageParagraph("rIdImage", 96, 48)}
${filler}
<w:sectPr><w:headerReference w:type="default" r:id="rIdHeader"/><w:footerReference w:type="default" r:id="rIdFooter"/>
<w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>
</w:body></w:document>`;
  const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles ${W}><w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Calibri" w:cs="Calibri"/><w:sz w:val="22"/></w:rPr></w:rPrDefault>
<w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="259" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>
<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>
<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style>
</w:styles>`;
  const numbering = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:numbering ${W}><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/><w:lvlJc w:val="left"/><w:pPr><w:ind w:left="720" w:hanging="360"/></w:pPr></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>`;
  const zip = new PizZip();
  zip.file(
    "[Content_Types].xml",
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>
<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>
<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>
<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>
<Override PartName="/word/header1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/>
<Override PartName="/word/footer1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/></Types>`,
  );
  zip.file(
    "_rels/.rels",
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
  );
  zip.file(
    "word/_rels/document.xml.rels",
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
<Relationship Id="rIdStyles" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>
<Relationship Id="rIdNumbering" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>
<Relationship Id="rIdHeader" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/>
<Relationship Id="rIdFooter" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml"/>
<Relationship Id="rIdImage" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/image1.png"/></Relationships>`,
  );
  zip.file("word/document.xml", document);
  zip.file("word/styles.xml", styles);
  zip.file("word/numbering.xml", numbering);
  zip.file("word/header1.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:hdr ${W}>${para(fixtureText.header)}</w:hdr>`);
  zip.file("word/footer1.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:ftr ${W}>${para(fixtureText.footer)}</w:ftr>`);
  zip.file("word/media/image1.png", solidPng(96, 48));
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

/** commentText names the strings of commentedDocx's comment. */
export const commentText = { anchor: "This sentence carries a reviewer's comment.", comment: "Please check this clause." } as const;

/**
 * commentedDocx is fixtureDocx with one Word comment: the word/comments.xml part (its relationship
 * and content type) and a commented range with its w:commentReference in the body. LibreOffice
 * 7.4 converts it fine with a plain `soffice --convert-to`, but loading it over UNO into a
 * running (warm) instance kills that instance ("Binary URP bridge disposed"), whatever the load
 * properties: the comment reference in the body together with the comments part is enough (the
 * part alone, or the reference alone, loads), as in real files such as SuperDoc's public
 * advanced-text.docx. It is the document that exercises the converter's crash path.
 */
export function commentedDocx(options: { paragraphs?: number; title?: string } = {}): Buffer {
  const zip = new PizZip(fixtureDocx(options));
  const comment = `<w:comment w:id="0" w:author="Reviewer" w:date="2026-11-20T10:32:00Z" w:initials="R"><w:p><w:r><w:annotationRef/></w:r><w:r><w:t xml:space="preserve">${esc(commentText.comment)}</w:t></w:r></w:p></w:comment>`;
  zip.file("word/comments.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:comments ${W}>${comment}</w:comments>`);
  const commented = `<w:p><w:commentRangeStart w:id="0"/><w:r><w:t xml:space="preserve">${esc(commentText.anchor)}</w:t></w:r><w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r></w:p>`;
  const document = zip.file("word/document.xml")!.asText();
  zip.file("word/document.xml", document.replace("<w:sectPr>", `${commented}\n<w:sectPr>`));
  const rels = zip.file("word/_rels/document.xml.rels")!.asText();
  zip.file(
    "word/_rels/document.xml.rels",
    rels.replace(
      "</Relationships>",
      '<Relationship Id="rIdComments" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments" Target="comments.xml"/></Relationships>',
    ),
  );
  const types = zip.file("[Content_Types].xml")!.asText();
  zip.file(
    "[Content_Types].xml",
    types.replace(
      "</Types>",
      '<Override PartName="/word/comments.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"/></Types>',
    ),
  );
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

/** flatOdtText names the strings of the flat ODF document below. */
export const flatOdtText = {
  first: "Caladea page one heading",
  second: "Second page after a break",
  cells: ["North", "South", "East", "West"],
} as const;

/** flatOdt is a two-page Writer document (flat XML) in Caladea with a 2x2 table. */
function flatOdt(): string {
  const t = flatOdtText;
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:font-face-decls><style:font-face style:name="Caladea" svg:font-family="Caladea" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"/></office:font-face-decls>
<office:styles><style:default-style style:family="paragraph"><style:text-properties style:font-name="Caladea" fo:font-size="12pt"/></style:default-style></office:styles>
<office:automatic-styles><style:style style:name="Break" style:family="paragraph"><style:paragraph-properties fo:break-before="page"/></style:style></office:automatic-styles>
<office:body><office:text>
<text:p>${t.first}</text:p>
<table:table table:name="Directions"><table:table-column table:number-columns-repeated="2"/>
<table:table-row><table:table-cell><text:p>${t.cells[0]}</text:p></table:table-cell><table:table-cell><text:p>${t.cells[1]}</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell><text:p>${t.cells[2]}</text:p></table:table-cell><table:table-cell><text:p>${t.cells[3]}</text:p></table:table-cell></table:table-row>
</table:table>
<text:p text:style-name="Break">${t.second}</text:p>
</office:text></office:body></office:document>`;
}

/**
 * libreOfficeFixtures has LibreOffice turn the flat ODF document into the formats convert reads
 * (docx, doc, odt, rtf), one plain soffice run per format with a private profile.
 */
export async function libreOfficeFixtures(soffice = "/usr/bin/soffice"): Promise<Record<"docx" | "doc" | "odt" | "rtf", Buffer>> {
  const dir = await mkdtemp(join(tmpdir(), "signet-convert-fixtures-"));
  try {
    const source = join(dir, "fixture.fodt");
    await writeFile(source, flatOdt());
    const targets = { docx: "docx:MS Word 2007 XML", doc: "doc:MS Word 97", odt: "odt:writer8", rtf: "rtf:Rich Text Format" } as const;
    const out = {} as Record<keyof typeof targets, Buffer>;
    for (const [format, filter] of Object.entries(targets) as Array<[keyof typeof targets, string]>) {
      await run(
        soffice,
        [`-env:UserInstallation=${pathToFileURL(join(dir, "profile")).href}`, "--headless", "--norestore", "--convert-to", filter, "--outdir", dir, source],
        {
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
          timeout: 60_000,
        },
      );
      out[format] = await readFile(join(dir, `fixture.${format}`));
    }
    return out;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * oleFile writes a minimal OLE compound file holding the given (empty) streams: enough for the
 * content checks, e.g. ["EncryptionInfo", "EncryptedPackage"] is how Office stores a
 * password-protected DOCX.
 */
export function oleFile(streams: string[]): Buffer {
  const sector = 512;
  const out = Buffer.alloc(sector * 3);
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(out, 0);
  out.writeUInt16LE(0x3e, 24);
  out.writeUInt16LE(3, 26);
  out.writeUInt16LE(0xfffe, 28);
  out.writeUInt16LE(9, 30);
  out.writeUInt16LE(6, 32);
  out.writeUInt32LE(1, 44); // one FAT sector
  out.writeUInt32LE(1, 48); // directory starts at sector 1
  out.writeUInt32LE(4096, 56);
  out.writeUInt32LE(0xfffffffe, 60);
  out.writeUInt32LE(0xfffffffe, 68);
  for (let i = 0; i < 109; i++) out.writeUInt32LE(0xffffffff, 76 + i * 4);
  out.writeUInt32LE(0, 76); // FAT in sector 0
  const fat = sector; // sector 0 starts after the header
  for (let i = 0; i < 128; i++) out.writeUInt32LE(0xffffffff, fat + i * 4);
  out.writeUInt32LE(0xfffffffd, fat); // sector 0: FAT
  out.writeUInt32LE(0xfffffffe, fat + 4); // sector 1: directory, end of chain
  const names = ["Root Entry", ...streams].slice(0, 4);
  names.forEach((name, i) => {
    const at = sector * 2 + i * 128;
    for (let c = 0; c < name.length; c++) out.writeUInt16LE(name.charCodeAt(c), at + c * 2);
    out.writeUInt16LE((name.length + 1) * 2, at + 64);
    out[at + 66] = i === 0 ? 5 : 2;
    out.writeUInt32LE(0xffffffff, at + 68);
    out.writeUInt32LE(0xffffffff, at + 72);
    out.writeUInt32LE(i === 0 && names.length > 1 ? 1 : 0xffffffff, at + 76);
    out.writeUInt32LE(0xfffffffe, at + 116);
  });
  return out;
}

/**
 * wordFile is a synthetic Word 97 file: an OLE container whose WordDocument stream starts with a
 * FIB (fEncrypted set or not) and nothing else, so the content checks pass but LibreOffice cannot
 * read it.
 */
export function wordFile(encrypted: boolean): Buffer {
  const base = oleFile(["WordDocument"]);
  const entry = 512 * 2 + 128;
  base.writeUInt32LE(2, entry + 116);
  base.writeUInt32LE(4096, entry + 120);
  const fib = Buffer.alloc(4096);
  fib.writeUInt16LE(0xa5ec, 0);
  fib[0x0b] = encrypted ? 0x01 : 0x00;
  return Buffer.concat([base, fib]);
}

/** multipartBody builds a multipart/form-data body the way curl -F does. */
export function multipartBody(parts: Array<{ name: string; fileName?: string; contentType?: string; data: Buffer | string }>): {
  body: Buffer;
  contentType: string;
} {
  const boundary = `----signet${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.fileName !== undefined ? `; filename="${part.fileName}"` : ""}`;
    const type = part.fileName !== undefined ? `\r\nContent-Type: ${part.contentType ?? "application/octet-stream"}` : "";
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}${type}\r\n\r\n`), Buffer.from(part.data), Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

// Drives a private LibreOffice over UNO to store a document with a password (soffice --convert-to
// cannot: LibreOffice 7.4 ignores a "Password" in the filter options). argv: source, profile URL,
// then pairs of output path and export filter.
const storeWithPassword = `
import os, signal, subprocess, sys, time, uno
from com.sun.star.beans import PropertyValue
def pv(name, value):
    p = PropertyValue(); p.Name = name; p.Value = value; return p
source, profile, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
pipe = "signetpw%d" % (time.time() * 1000)
proc = subprocess.Popen(["soffice", "-env:UserInstallation=" + profile, "--headless", "--norestore", "--invisible", "--accept=pipe,name=%s;urp;" % pipe], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
try:
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    doc = None
    for _ in range(300):
        try:
            ctx = resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
            desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
            doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(source), "_blank", 0, (pv("Hidden", True),))
            if doc is not None: break
        except Exception:
            pass
        time.sleep(0.1)
    if doc is None: sys.exit("could not load the source document")
    for out, flt in zip(pairs[0::2], pairs[1::2]):
        doc.storeToURL(uno.systemPathToFileUrl(out), (pv("FilterName", flt), pv("Password", "secret")))
    doc.close(True)
finally:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
`;

/**
 * passwordProtectedFixtures has a real LibreOffice save the flat ODF document with the password
 * "secret" as ODT (writer8: encrypted package entries, <manifest:encryption-data>) and as Word 97
 * (RC4, fEncrypted in the FIB), through UNO with a private profile. LibreOffice 7.4 cannot write a
 * password-protected DOCX headless (the OOXML export ignores the password), so there is no DOCX here.
 */
export async function passwordProtectedFixtures(python = "/usr/bin/python3"): Promise<Record<"odt" | "doc", Buffer>> {
  const dir = await mkdtemp(join(tmpdir(), "signet-convert-encrypted-"));
  try {
    const source = join(dir, "fixture.fodt");
    const script = join(dir, "store-with-password.py");
    await writeFile(source, flatOdt());
    await writeFile(script, storeWithPassword);
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir };
    const profile = pathToFileURL(join(dir, "profile")).href;
    // A first plain run creates the profile, so the UNO run does not meet LibreOffice's first-start restart.
    await run(
      "soffice",
      [`-env:UserInstallation=${profile}`, "--headless", "--norestore", "--convert-to", "odt:writer8", "--outdir", join(dir, "plain"), source],
      { env, timeout: 60_000 },
    );
    // Once more if the first attempt fails: LibreOffice 7.4 sometimes restarts itself right after
    // start-up and drops the UNO bridge (a clean-clone CI run failed here once; 3 runs alone passed).
    const args = [script, source, profile, join(dir, "secret.odt"), "writer8", join(dir, "secret.doc"), "MS Word 97"];
    await run(python, args, { env, timeout: 90_000 }).catch(() => run(python, args, { env, timeout: 90_000 }));
    return { odt: await readFile(join(dir, "secret.odt")), doc: await readFile(join(dir, "secret.doc")) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A 150 KB DOCX whose 44 MB document.xml keeps LibreOffice busy far longer than a few seconds. */
export function slowDocx(): Buffer {
  const paragraph = "<w:p><w:r><w:t>Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor</w:t></w:r></w:p>";
  const zip = new PizZip();
  zip.file(
    "[Content_Types].xml",
    '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
  );
  zip.file(
    "_rels/.rels",
    '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file(
    "word/document.xml",
    `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${paragraph.repeat(400_000)}</w:body></w:document>`,
  );
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

/** disguised moves word/comments.xml to another part name: LibreOffice follows the relationship, Signet's check does not see it. */
export function hideComments(docx: Buffer): Buffer {
  const zip = new PizZip(docx);
  zip.file("word/remarks.xml", zip.file("word/comments.xml")!.asUint8Array());
  zip.remove("word/comments.xml");
  const rels = zip.file("word/_rels/document.xml.rels")!.asText();
  const types = zip.file("[Content_Types].xml")!.asText();
  if (!rels.includes('Target="comments.xml"') || !types.includes('"/word/comments.xml"')) throw new Error("no word/comments.xml to hide");
  zip.file("word/_rels/document.xml.rels", rels.replace('Target="comments.xml"', 'Target="remarks.xml"'));
  zip.file("[Content_Types].xml", types.replace('"/word/comments.xml"', '"/word/remarks.xml"'));
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}
