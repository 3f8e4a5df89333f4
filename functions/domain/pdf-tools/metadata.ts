// POST /v1/metadata: read a PDF's document information (the trailer's /Info, custom keys too) and
// its XMP packet; write them kept in step (the Info keys and the XMP dc/pdf/xmp properties). On a
// signed PDF the write is an incremental update of /Info and /Metadata, which Signet's verify and
// pyHanko accept as LTA-level changes (pyHanko's DocInfoRule and MetadataUpdateRule: /Info and
// /Metadata indirect, the old and the new packet well-formed XML); what pyHanko would refuse is
// 409 WOULD_INVALIDATE_SIGNATURES unless the signatures are dropped.
import { PdfDict, PdfName, PdfRef, PdfStream, PdfString } from "@libpdf/core";
import { trailerOf } from "#domain/pdf/libpdf-internals.ts";
import { loadForWriting, openPdfFile } from "#domain/pdf/open-pdf.ts";
import { dictAt, type PdfFile } from "#domain/pdf/pdf-file.ts";
import { decodeStream } from "#domain/pdf/revisions.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { type DocumentInfo, xmlProblem, xmpPacket } from "#domain/pdf-tools/metadata-xmp.ts";
import { dropSignatures, signedSignatures, wouldInvalidate } from "#domain/pdf-tools/signatures.ts";
import { saveUpdate, type ToolResult } from "#domain/pdf-tools/stamp-save.ts";
import { checkMayChange } from "#domain/pdf-tools/permissions.ts";

/** PdfMetadata is what POST /v1/metadata reads: the standard Info entries (dates ISO 8601), the custom ones, and the XMP packet. */
export interface PdfMetadata extends Required<{ [K in keyof DocumentInfo]: string | null }> {
  custom: Record<string, string>;
  xmp: string | null;
}

/** MetadataChanges are the `set` of a write: a value replaces, null removes, a missing key keeps. */
export type MetadataChanges = { [K in keyof DocumentInfo]?: string | null } & { custom?: Record<string, string | null> | undefined };

/** MetadataWrite is a validated write request. */
export interface MetadataWrite {
  set: MetadataChanges;
  /** A whole XMP packet to store instead of the one Signet writes from the Info entries. */
  xmp?: string | undefined;
  dropSignatures: boolean;
}

/** MetadataWritten is the written PDF, what it now says, whether it was an incremental update, and the signatures removed. */
export interface MetadataWritten extends ToolResult {
  metadata: PdfMetadata;
  incremental: boolean;
}

// Info keys by the request's names (ISO 32000-1 table 317).
const KEYS = {
  title: "Title",
  author: "Author",
  subject: "Subject",
  keywords: "Keywords",
  creator: "Creator",
  producer: "Producer",
  creationDate: "CreationDate",
  modDate: "ModDate",
} as const satisfies Record<keyof DocumentInfo, string>;
const DATES = new Set<string>(["CreationDate", "ModDate"]);

/** pdfDateToIso reads a PDF date (D:YYYYMMDDHHmmSSOHH'mm) as ISO 8601; what does not parse is kept as it is. */
function pdfDateToIso(value: string): string {
  const match = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?([Zz+-])?(\d{2})?'?(\d{2})?'?$/.exec(value.trim());
  if (!match) return value;
  const [, y, mo = "01", d = "01", h = "00", mi = "00", s = "00", sign, oh = "00", om = "00"] = match;
  const zone = !sign || sign.toUpperCase() === "Z" ? "Z" : `${sign}${oh}:${om}`;
  return `${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`;
}

/** isoToPdfDate writes an ISO 8601 time as a PDF date in UTC. */
function isoToPdfDate(value: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new SignetError("VALIDATION_ERROR", `"${value}" is not an ISO 8601 date and time.`);
  return `D:${date.toISOString().replace(/[-:T]/g, "").slice(0, 14)}Z`;
}

function infoOf(file: PdfFile): PdfDict | undefined {
  return dictAt(file.latest, file.latest.trailer.get("Info"));
}

/** xmpOf is the catalog's XMP packet as text, or null when there is none or it does not decode. */
function xmpOf(file: PdfFile): string | null {
  const view = file.latest;
  const value = view.catalog.get("Metadata");
  const stream = value instanceof PdfRef ? view.resolve(value) : value;
  if (!(stream instanceof PdfStream)) return null;
  try {
    return decodeStream(stream, Buffer.from(stream.data), file.limits, file.budget).toString("utf8");
  } catch {
    return null;
  }
}

/** metadataOf reads a PdfFile's Info entries and XMP packet. */
function metadataOf(file: PdfFile): PdfMetadata {
  const info = infoOf(file);
  const text = (key: string): string | null => {
    const value = info?.get(key);
    const resolved = value instanceof PdfRef ? file.latest.resolve(value) : value;
    if (resolved instanceof PdfString) return DATES.has(key) ? pdfDateToIso(resolved.asString()) : resolved.asString();
    if (resolved instanceof PdfName) return resolved.value;
    return null;
  };
  const standard = Object.fromEntries(Object.entries(KEYS).map(([name, key]) => [name, text(key)])) as Omit<PdfMetadata, "custom" | "xmp">;
  const known = new Set<string>([...Object.values(KEYS), "Trapped"]);
  const custom: Record<string, string> = {};
  for (const [name] of info ?? []) {
    const value = text(name.value);
    if (!known.has(name.value) && value !== null) custom[name.value] = value;
  }
  return { ...standard, custom, xmp: xmpOf(file) };
}

/** readMetadata answers POST /v1/metadata without `set`: the document information and the XMP packet (an encrypted PDF opened with `password`). */
export function readMetadata(bytes: Buffer, maxPages: number, password?: string): PdfMetadata {
  return metadataOf(openPdfFile(bytes, { maxPages, password }));
}

/** merged applies the changes to what the PDF says (modDate: the write's time unless set). */
function merged(current: PdfMetadata, write: MetadataWrite, now: Date): { info: DocumentInfo; custom: Record<string, string> } {
  const info: DocumentInfo = {};
  for (const name of Object.keys(KEYS) as Array<keyof DocumentInfo>) {
    const change = write.set[name];
    const value = change === undefined ? current[name] : change;
    if (value !== null) info[name] = value;
  }
  if (write.set.modDate === undefined) info.modDate = now.toISOString().replace(/\.\d{3}Z$/, "Z");
  const custom = { ...current.custom };
  for (const [key, value] of Object.entries(write.set.custom ?? {})) {
    if (value === null) delete custom[key];
    else custom[key] = value;
  }
  return { info, custom };
}

/** checkSignedWrite refuses a write pyHanko would flag on a signed PDF: an existing XMP packet that is not well-formed, a direct /Metadata. */
function checkSignedWrite(file: PdfFile, current: PdfMetadata): void {
  const signatures = signedSignatures(file);
  if (signatures.length === 0) return;
  const metadata = file.latest.catalog.get("Metadata");
  if (metadata !== undefined && !(metadata instanceof PdfRef))
    throw wouldInvalidate(signatures, "a metadata update (the catalog's /Metadata is not an indirect stream)");
  if (metadata !== undefined && (current.xmp === null || xmlProblem(current.xmp) !== undefined)) {
    throw wouldInvalidate(signatures, "a metadata update (the PDF's XMP packet is not well-formed XML, and a replacement of it is a change pyHanko refuses)");
  }
}

/** writeMetadata runs POST /v1/metadata with `set` (see the file comment); an encrypted PDF opens with `password` and stays encrypted with its own key. */
export async function writeMetadata(
  bytes: Buffer,
  write: MetadataWrite,
  options: { maxPages: number; now: Date; password?: string | undefined },
): Promise<MetadataWritten> {
  if (write.xmp !== undefined) {
    const problem = xmlProblem(write.xmp);
    if (problem)
      throw new SignetError("VALIDATION_ERROR", `xmp is not a well-formed XML packet (${problem}).`, { details: [{ field: "xmp", issue: problem }] });
  }
  const { maxPages, password } = options;
  const file = openPdfFile(bytes, { maxPages, password });
  const current = metadataOf(file);
  const signed = signedSignatures(file).length > 0;
  if (!write.dropSignatures) checkSignedWrite(file, current);
  const pdf = await loadForWriting(bytes, file, maxPages, password);
  checkMayChange(pdf, "changes its metadata");
  const dropped = signed && write.dropSignatures ? dropSignatures(pdf, file) : [];
  const { info, custom } = merged(current, write, options.now);
  const dict = new PdfDict();
  for (const [name, key] of Object.entries(KEYS)) {
    const value = info[name as keyof DocumentInfo];
    if (value !== undefined) dict.set(key, PdfString.fromString(DATES.has(key) ? isoToPdfDate(value) : value));
  }
  for (const [key, value] of Object.entries(custom)) dict.set(key, PdfString.fromString(value));
  trailerOf(pdf).set("Info", pdf.register(dict));
  const packet = write.xmp ?? xmpPacket(info, info.modDate ?? options.now.toISOString(), current.xmp ?? undefined);
  const stream = PdfStream.fromDict({ Type: PdfName.of("Metadata"), Subtype: PdfName.of("XML") }, new TextEncoder().encode(packet));
  pdf.getCatalog().set("Metadata", pdf.register(stream));
  const incremental = signed && !write.dropSignatures;
  const saved = await saveUpdate(pdf, bytes, { incremental });
  return { ...saved, incremental, droppedSignatures: dropped, metadata: readMetadata(saved.pdf, maxPages, password) };
}
