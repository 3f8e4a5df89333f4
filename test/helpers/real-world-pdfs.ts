// Generated PDFs with the structures real-world writers produce and Signet once mishandled (issue
// 28): legal cross-reference streams with wide fields, unusual page trees, recoverable damage,
// hybrid-reference files, an encrypted file with a cross-reference stream. Each is written byte by
// byte here (pdf-lib and libpdf only write well-formed files), with the page count the readers
// (qpdf, poppler, MuPDF) agree on.
import { deflateSync } from "node:zlib";

/** RealWorldCase is one generated PDF and what the readers make of it. */
export interface RealWorldCase {
  name: string;
  bytes: Buffer;
  /** The page count qpdf, poppler and MuPDF agree on for the input. */
  pages: number;
  /** The text that identifies each page ("Page 1", ...), in order. */
  texts: string[];
}

/** RawObject is one indirect object: its number and its body (everything between `obj` and `endobj`). */
interface RawObject {
  num: number;
  body: string | Buffer;
  /** Put into the object stream (hybrid and xref-stream files) instead of the file body. */
  compressed?: boolean;
}

/** Damage is a recoverable defect some writers leave. */
type Damage = "missing-xref-keyword" | "startxref-off-by-one" | "space-padded-table";

interface WriteOptions {
  /** The cross-reference section: a classic table (default), a stream with these field widths, or a hybrid file (table plus /XRefStm). */
  xref?: { table: true } | { stream: [number, number, number] } | { hybrid: true };
  /** Extra trailer entries, e.g. "/Encrypt 9 0 R". */
  trailer?: string;
  damage?: Damage;
  root?: number;
}

const FONT = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>";

/** pageContent is a content stream object body drawing a label. */
function pageContent(label: string): Buffer {
  const data = `BT /F1 28 Tf 72 700 Td (${label}) Tj ET`;
  return Buffer.from(`<< /Length ${data.length} >>\nstream\n${data}\nendstream`, "latin1");
}

/** pageDict is a page dictionary's text (direct or the body of an indirect object). */
function pageDict(parent: number | null, content: number, fontRef: number): string {
  return `<< /Type /Page${parent === null ? "" : ` /Parent ${parent} 0 R`} /MediaBox [0 0 595 842] /Resources << /Font << /F1 ${fontRef} 0 R >> >> /Contents ${content} 0 R >>`;
}

/** fieldBytes writes value big-endian in width bytes (widths above 6 hold values below 2^53). */
function fieldBytes(value: number, width: number): number[] {
  const out: number[] = [];
  for (let index = width - 1; index >= 0; index--) out.push(Number((BigInt(value) >> BigInt(8 * index)) & 0xffn));
  return out;
}

/** PdfWriter lays out a file from the header on, keeping where each object landed. */
class PdfWriter {
  readonly chunks: Buffer[] = [Buffer.from("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  length = this.chunks[0]!.length;
  readonly offsets = new Map<number, number>();
  readonly inStream = new Map<number, { stream: number; index: number }>();

  constructor(public size: number) {}

  push(chunk: Buffer | string): void {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk;
    this.chunks.push(buffer);
    this.length += buffer.length;
  }

  object(object: RawObject): void {
    this.offsets.set(object.num, this.length);
    this.push(`${object.num} 0 obj\n`);
    this.push(object.body);
    this.push("\nendobj\n");
  }

  /** objectStream packs objects into one new compressed object stream. */
  objectStream(packed: RawObject[]): void {
    const streamNum = this.size++;
    let header = "";
    let body = "";
    for (const [index, object] of packed.entries()) {
      header += `${object.num} ${body.length} `;
      body += `${object.body.toString()}\n`;
      this.inStream.set(object.num, { stream: streamNum, index });
    }
    const data = deflateSync(Buffer.from(header + body, "latin1"));
    this.offsets.set(streamNum, this.length);
    this.push(`${streamNum} 0 obj\n<< /Type /ObjStm /N ${packed.length} /First ${header.length} /Filter /FlateDecode /Length ${data.length} >>\nstream\n`);
    this.push(data);
    this.push("\nendstream\nendobj\n");
  }

  /** xrefStream writes a cross-reference stream listing `entries` (all numbers, or only its own for a hybrid file); its offset. */
  xrefStream(widths: [number, number, number], entries: number[], extra: string, hybridIndex = false): number {
    const number = this.size;
    const at = this.length;
    this.offsets.set(number, at);
    const rows: number[] = [];
    // A hybrid file's stream lists only its own objects (/Index); a plain one lists every number.
    const numbers = hybridIndex ? [...entries].sort((a, b) => a - b) : Array.from({ length: number + 1 }, (_, num) => num);
    for (const num of numbers) {
      const located = this.inStream.get(num);
      const offset = this.offsets.get(num);
      if (!entries.includes(num)) rows.push(...fieldBytes(0, widths[0]), ...fieldBytes(0, widths[1]), ...fieldBytes(num === 0 ? 65535 : 0, widths[2]));
      else if (located) rows.push(...fieldBytes(2, widths[0]), ...fieldBytes(located.stream, widths[1]), ...fieldBytes(located.index, widths[2]));
      else rows.push(...fieldBytes(1, widths[0]), ...fieldBytes(offset ?? 0, widths[1]), ...fieldBytes(0, widths[2]));
    }
    const data = deflateSync(Buffer.from(rows));
    const index = hybridIndex ? `/Index [${numbers.map((num) => `${num} 1`).join(" ")}] ` : "";
    this.push(
      `${number} 0 obj\n<< /Type /XRef /W [${widths.join(" ")}] /Size ${number + 1} ${index}${extra}/Filter /FlateDecode /Length ${data.length} >>\nstream\n`,
    );
    this.push(data);
    this.push("\nendstream\nendobj\n");
    return at;
  }

  /** xrefTable writes a classic table (subsections of consecutive plain objects) and its trailer; its offset. */
  xrefTable(trailerKeys: string, damage: Damage | undefined, xrefStm: number | undefined): number {
    const startxref = this.length;
    // Subsections of consecutive listed objects: the compressed ones are left out (Word lists only its plain objects).
    const listed = [0, ...[...this.offsets.keys()].filter((num) => !this.inStream.has(num) && num !== this.size)].sort((a, b) => a - b);
    const sections: string[] = [];
    for (let at = 0; at < listed.length; ) {
      let end = at;
      while (end + 1 < listed.length && listed[end + 1] === listed[end]! + 1) end++;
      const rows = listed.slice(at, end + 1).map((num) => {
        const offset = num === 0 ? "0000000000" : String(this.offsets.get(num)).padStart(10, damage === "space-padded-table" ? " " : "0");
        return `${offset} ${num === 0 ? "65535 f" : "00000 n"} \n`;
      });
      sections.push(`${listed[at]} ${end - at + 1}\n${rows.join("")}`);
      at = end + 1;
    }
    const top = xrefStm !== undefined ? this.size + 1 : this.size;
    this.push(`${damage === "missing-xref-keyword" ? "" : "xref\n"}${sections.join("")}`);
    this.push(`trailer\n<< ${trailerKeys.replace(/\/Size \d+/, `/Size ${top}`)}${xrefStm !== undefined ? ` /XRefStm ${xrefStm}` : ""} >>\n`);
    return startxref;
  }
}

/** writePdf lays out the objects with the requested cross-reference section and damage. */
function writePdf(objects: RawObject[], options: WriteOptions = {}): Buffer {
  const { xref = { table: true }, trailer = "", root = 1 } = options;
  const writer = new PdfWriter(Math.max(...objects.map((object) => object.num)) + 1);
  const plain = objects.filter((object) => !object.compressed || !("stream" in xref || "hybrid" in xref));
  for (const object of plain) writer.object(object);
  const packed = objects.filter((object) => !plain.includes(object));
  if (packed.length > 0) writer.objectStream(packed);
  let startxref: number;
  if ("stream" in xref) {
    const all = [...writer.offsets.keys(), ...writer.inStream.keys(), writer.size];
    startxref = writer.xrefStream(xref.stream, all, `/Root ${root} 0 R${trailer ? ` ${trailer}` : ""} `);
  } else {
    // Hybrid (Word's layout): the table lists the plain objects, the /XRefStm stream the compressed ones.
    const xrefStm = "hybrid" in xref ? writer.xrefStream([1, 4, 2], [...writer.inStream.keys(), writer.size], "", true) : undefined;
    startxref = writer.xrefTable(`/Size ${writer.size} /Root ${root} 0 R${trailer ? ` ${trailer}` : ""}`, options.damage, xrefStm);
  }
  writer.push(`startxref\n${startxref + (options.damage === "startxref-off-by-one" ? 1 : 0)}\n%%EOF\n`);
  return Buffer.concat(writer.chunks);
}

/** PageSpec lays out a standard document: catalog 1, root /Pages 2, font 3, then pages and contents. */
function standardObjects(pageCount: number, options: { compressPages?: boolean } = {}): RawObject[] {
  const objects: RawObject[] = [
    { num: 1, body: "<< /Type /Catalog /Pages 2 0 R >>" },
    { num: 3, body: FONT },
  ];
  const kids: string[] = [];
  for (let index = 0; index < pageCount; index++) {
    const page = 4 + index * 2;
    objects.push({ num: page, body: pageDict(2, page + 1, 3), compressed: options.compressPages === true });
    objects.push({ num: page + 1, body: pageContent(`Page ${index + 1}`) });
    kids.push(`${page} 0 R`);
  }
  objects.push({ num: 2, body: `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${pageCount} >>`, compressed: options.compressPages === true });
  return objects.sort((a, b) => a.num - b.num);
}

const labels = (count: number) => Array.from({ length: count }, (_, index) => `Page ${index + 1}`);

/** wideXrefStream: a legal cross-reference stream whose offset field is 8 bytes wide (/W [1 8 2]), as pyHanko writes. */
export function wideXrefStream(): RealWorldCase {
  return {
    name: "xref-stream-w-1-8-2",
    bytes: writePdf(standardObjects(2, { compressPages: true }), { xref: { stream: [1, 8, 2] } }),
    pages: 2,
    texts: labels(2),
  };
}

/** directKid: the root's /Kids holds one indirect page and one direct page dictionary. */
export function directKid(): RealWorldCase {
  const objects: RawObject[] = [
    { num: 1, body: "<< /Type /Catalog /Pages 2 0 R >>" },
    { num: 2, body: `<< /Type /Pages /Kids [4 0 R ${pageDict(2, 6, 3)}] /Count 2 >>` },
    { num: 3, body: FONT },
    { num: 4, body: pageDict(2, 5, 3) },
    { num: 5, body: pageContent("Page 1") },
    { num: 6, body: pageContent("Page 2") },
  ];
  return { name: "page-tree-direct-kid", bytes: writePdf(objects), pages: 2, texts: labels(2) };
}

/** onlyDirectKids: every kid of the root is a direct page dictionary. */
export function onlyDirectKids(): RealWorldCase {
  const objects: RawObject[] = [
    { num: 1, body: "<< /Type /Catalog /Pages 2 0 R >>" },
    { num: 2, body: `<< /Type /Pages /Kids [${pageDict(2, 4, 3)} ${pageDict(2, 5, 3)}] /Count 2 >>` },
    { num: 3, body: FONT },
    { num: 4, body: pageContent("Page 1") },
    { num: 5, body: pageContent("Page 2") },
  ];
  return { name: "page-tree-only-direct-kids", bytes: writePdf(objects), pages: 2, texts: labels(2) };
}

/** pagesIsPage: the catalog's /Pages points at a page dictionary, not at a /Pages node. */
export function pagesIsPage(): RealWorldCase {
  const objects: RawObject[] = [
    { num: 1, body: "<< /Type /Catalog /Pages 2 0 R >>" },
    { num: 2, body: pageDict(null, 4, 3) },
    { num: 3, body: FONT },
    { num: 4, body: pageContent("Page 1") },
  ];
  // poppler shows the page; qpdf and MuPDF count 0 pages.
  return { name: "page-tree-root-is-page", bytes: writePdf(objects), pages: 1, texts: labels(1) };
}

/** loopedTree: an intermediate node lists the root among its kids (pages 1 and 2 are reachable once each). */
export function loopedTree(): RealWorldCase {
  const objects: RawObject[] = [
    { num: 1, body: "<< /Type /Catalog /Pages 2 0 R >>" },
    { num: 2, body: "<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>" },
    { num: 3, body: FONT },
    { num: 4, body: pageDict(2, 5, 3) },
    { num: 5, body: pageContent("Page 1") },
    { num: 6, body: "<< /Type /Pages /Parent 2 0 R /Kids [7 0 R 2 0 R] /Count 1 >>" },
    { num: 7, body: pageDict(6, 8, 3) },
    { num: 8, body: pageContent("Page 2") },
  ];
  return { name: "page-tree-loop", bytes: writePdf(objects), pages: 2, texts: labels(2) };
}

/** untypedNodes: a nested tree whose intermediate node and one page carry no /Type (readers infer it). */
export function untypedNodes(): RealWorldCase {
  const objects: RawObject[] = [
    { num: 1, body: "<< /Type /Catalog /Pages 2 0 R >>" },
    { num: 2, body: "<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 3 >>" },
    { num: 3, body: FONT },
    { num: 4, body: pageDict(2, 5, 3) },
    { num: 5, body: pageContent("Page 1") },
    { num: 6, body: "<< /Parent 2 0 R /Kids [7 0 R 9 0 R] /Count 2 >>" },
    { num: 7, body: pageDict(6, 8, 3).replace("/Type /Page ", "") },
    { num: 8, body: pageContent("Page 2") },
    { num: 9, body: pageDict(6, 10, 3) },
    { num: 10, body: pageContent("Page 3") },
  ];
  return { name: "page-tree-untyped-nodes", bytes: writePdf(objects), pages: 3, texts: labels(3) };
}

/** nestedTree: a well-formed two-level tree (what must keep every page object untouched). */
export function nestedTree(): RealWorldCase {
  const objects: RawObject[] = [
    { num: 1, body: "<< /Type /Catalog /Pages 2 0 R >>" },
    { num: 2, body: "<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 3 >>" },
    { num: 3, body: FONT },
    { num: 4, body: pageDict(2, 5, 3) },
    { num: 5, body: pageContent("Page 1") },
    { num: 6, body: "<< /Type /Pages /Parent 2 0 R /Kids [7 0 R 9 0 R] /Count 2 >>" },
    { num: 7, body: pageDict(6, 8, 3) },
    { num: 8, body: pageContent("Page 2") },
    { num: 9, body: pageDict(6, 10, 3) },
    { num: 10, body: pageContent("Page 3") },
  ];
  return { name: "page-tree-nested", bytes: writePdf(objects), pages: 3, texts: labels(3) };
}

/** damaged: a two-page file with one recoverable cross-reference defect. */
export function damaged(damage: Damage): RealWorldCase {
  return { name: `damaged-${damage}`, bytes: writePdf(standardObjects(2), { damage }), pages: 2, texts: labels(2) };
}

/** hybrid: a Word-style hybrid-reference file (a table plus /XRefStm for the objects in an object stream). */
export function hybrid(): RealWorldCase {
  return { name: "hybrid-reference", bytes: writePdf(standardObjects(2, { compressPages: true }), { xref: { hybrid: true } }), pages: 2, texts: labels(2) };
}

/** encryptedWideXrefStream: an RC4-encrypted file (standard security handler) whose cross-reference stream has /W [1 8 2]. */
export function encryptedWideXrefStream(): RealWorldCase {
  const objects = standardObjects(1, { compressPages: false });
  const padding = "28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A";
  objects.push({ num: 20, body: `<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 /O <${padding}> /U <${padding}> >>` });
  const id = "<0123456789ABCDEF0123456789ABCDEF>";
  return {
    name: "encrypted-xref-stream-w-1-8-2",
    bytes: writePdf(objects, { xref: { stream: [1, 8, 2] }, trailer: `/Encrypt 20 0 R /ID [${id} ${id}]` }),
    pages: 1,
    texts: labels(1),
  };
}

/** realWorldCases lists every generated case (the encrypted one included). */
export function realWorldCases(): RealWorldCase[] {
  return [
    wideXrefStream(),
    directKid(),
    onlyDirectKids(),
    pagesIsPage(),
    loopedTree(),
    untypedNodes(),
    nestedTree(),
    damaged("missing-xref-keyword"),
    damaged("startxref-off-by-one"),
    damaged("space-padded-table"),
    hybrid(),
    encryptedWideXrefStream(),
  ];
}
