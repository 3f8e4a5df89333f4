/**
 * The formats Signet reads, one row each: every list of source formats (the contract's enum, the
 * converter's import filters, the checks intake runs) is derived from FORMATS, so a format is
 * named in one place and a new one is a compile error wherever it is missing.
 */

/** SourceFamily is the LibreOffice application that reads a format: it decides the PDF export filter. */
export type SourceFamily = "writer" | "calc" | "impress";

/** ContainerKind is how a format's bytes are held: a zip package, a compound file (CFB) or text. */
export type ContainerKind = "zip" | "cfb" | "text";

/** TARGET_FORMATS are the formats the converter writes. */
export const TARGET_FORMATS = ["pdf", "docx"] as const;

/** TargetFormat is a format the converter writes. */
export type TargetFormat = (typeof TARGET_FORMATS)[number];

/**
 * Sniff is what makes bytes a format, read from its container: a zip's main part or OpenDocument
 * mimetype, a compound file's stream (any of several), a text's first characters or its encoding.
 */
export type Sniff =
  | { kind: "zip"; mainPart: string }
  | { kind: "zip"; mimetype: string }
  | { kind: "cfb"; streams: readonly string[] }
  | { kind: "text"; prefix: string }
  | { kind: "text"; utf8: string };

/**
 * Check is one rule intake applies before LibreOffice sees a document: `inflation` (every zip
 * entry inflated with a cap), `references` (outside references removed, SVG parts sanitised,
 * embedded documents checked), `pixels` (image sizes), `formulas` (workbook formulas that read the
 * machine), `links` (Word 97-2003 linking fields), `pictures` (compound-file pictures that are
 * SVG), `rtf` (RTF linking fields neutralised, RTF pictures), `data-uri-images` (inline images of
 * HTML and Markdown).
 */
export type Check = "inflation" | "references" | "pixels" | "formulas" | "links" | "pictures" | "rtf" | "data-uri-images";

/** FormatRow is one format: its file extension, media type, application, container, sniff, checks and outputs. */
export interface FormatRow {
  extension: string;
  mediaType: string;
  family: SourceFamily;
  container: ContainerKind;
  /** What to call a file of this format in a message ("an Excel workbook (.xlsx)"). */
  what: string;
  sniff: Sniff;
  checks: readonly Check[];
  targets: readonly TargetFormat[];
}

const PACKAGE: readonly Check[] = ["inflation", "references", "pixels"];
const WORKBOOK: readonly Check[] = ["inflation", "formulas", "references", "pixels"];
const ODF = "application/vnd.oasis.opendocument";
const OOXML = "application/vnd.openxmlformats-officedocument";

/** FORMATS is the table of source formats, in the order the API documents them. */
export const FORMATS = {
  docx: {
    extension: "docx",
    mediaType: `${OOXML}.wordprocessingml.document`,
    family: "writer",
    container: "zip",
    what: "a DOCX",
    sniff: { kind: "zip", mainPart: "word/document.xml" },
    checks: PACKAGE,
    targets: ["pdf"],
  },
  doc: {
    extension: "doc",
    mediaType: "application/msword",
    family: "writer",
    container: "cfb",
    what: "a Word 97-2003 document",
    sniff: { kind: "cfb", streams: ["WordDocument"] },
    checks: ["links", "pictures"],
    targets: ["pdf", "docx"],
  },
  odt: {
    extension: "odt",
    mediaType: `${ODF}.text`,
    family: "writer",
    container: "zip",
    what: "an OpenDocument text",
    sniff: { kind: "zip", mimetype: `${ODF}.text` },
    checks: PACKAGE,
    targets: ["pdf", "docx"],
  },
  rtf: {
    extension: "rtf",
    mediaType: "application/rtf",
    family: "writer",
    container: "text",
    what: "RTF",
    sniff: { kind: "text", prefix: "{\\rtf" },
    checks: ["rtf"],
    targets: ["pdf", "docx"],
  },
  md: {
    extension: "md",
    mediaType: "text/markdown",
    family: "writer",
    container: "text",
    what: "Markdown",
    sniff: { kind: "text", utf8: "Markdown" },
    checks: ["data-uri-images"],
    targets: ["docx", "pdf"],
  },
  html: {
    extension: "html",
    mediaType: "text/html",
    family: "writer",
    container: "text",
    what: "HTML",
    sniff: { kind: "text", utf8: "HTML" },
    checks: ["data-uri-images"],
    targets: ["docx", "pdf"],
  },
  xlsx: {
    extension: "xlsx",
    mediaType: `${OOXML}.spreadsheetml.sheet`,
    family: "calc",
    container: "zip",
    what: "an Excel workbook (.xlsx)",
    sniff: { kind: "zip", mainPart: "xl/workbook.xml" },
    checks: WORKBOOK,
    targets: ["pdf"],
  },
  xls: {
    extension: "xls",
    mediaType: "application/vnd.ms-excel",
    family: "calc",
    container: "cfb",
    what: "an Excel 97-2003 workbook (.xls)",
    sniff: { kind: "cfb", streams: ["Workbook", "Book"] },
    checks: ["pictures"],
    targets: ["pdf"],
  },
  ods: {
    extension: "ods",
    mediaType: `${ODF}.spreadsheet`,
    family: "calc",
    container: "zip",
    what: "an OpenDocument spreadsheet",
    sniff: { kind: "zip", mimetype: `${ODF}.spreadsheet` },
    checks: WORKBOOK,
    targets: ["pdf"],
  },
  csv: {
    extension: "csv",
    mediaType: "text/csv",
    family: "calc",
    container: "text",
    what: "CSV",
    // CSV holds no reference, and it is imported without evaluating formulas (job-files.ts).
    sniff: { kind: "text", utf8: "CSV" },
    checks: [],
    targets: ["pdf"],
  },
  pptx: {
    extension: "pptx",
    mediaType: `${OOXML}.presentationml.presentation`,
    family: "impress",
    container: "zip",
    what: "a PowerPoint presentation (.pptx)",
    sniff: { kind: "zip", mainPart: "ppt/presentation.xml" },
    checks: PACKAGE,
    targets: ["pdf"],
  },
  ppt: {
    extension: "ppt",
    mediaType: "application/vnd.ms-powerpoint",
    family: "impress",
    container: "cfb",
    what: "a PowerPoint 97-2003 presentation (.ppt)",
    sniff: { kind: "cfb", streams: ["PowerPoint Document"] },
    checks: ["pictures"],
    targets: ["pdf"],
  },
  odp: {
    extension: "odp",
    mediaType: `${ODF}.presentation`,
    family: "impress",
    container: "zip",
    what: "an OpenDocument presentation",
    sniff: { kind: "zip", mimetype: `${ODF}.presentation` },
    checks: PACKAGE,
    targets: ["pdf"],
  },
} as const satisfies Record<string, FormatRow>;

/** SourceFormat is a format the converter reads: a key of FORMATS. */
export type SourceFormat = keyof typeof FORMATS;

/** SOURCE_FORMATS lists the source formats in table order (for enums: the contract, OpenAPI). */
export const SOURCE_FORMATS = Object.keys(FORMATS) as [SourceFormat, ...SourceFormat[]];

/** FormatIn is the source formats held in one kind of container, derived from the table. */
export type FormatIn<C extends ContainerKind> = { [K in SourceFormat]: (typeof FORMATS)[K]["container"] extends C ? K : never }[SourceFormat];

/** ZipFormat is a source format held in a zip package (OOXML or OpenDocument). */
export type ZipFormat = FormatIn<"zip">;

/** isOpenDocument tells an OpenDocument package (sniffed by its mimetype entry) from an OOXML one (by its main part). */
export function isOpenDocument(format: SourceFormat): boolean {
  return "mimetype" in FORMATS[format].sniff;
}

/** formatsTo lists the source formats that convert to `target`, in table order. */
export function formatsTo(target: TargetFormat): SourceFormat[] {
  return SOURCE_FORMATS.filter((format) => (FORMATS[format].targets as readonly TargetFormat[]).includes(target));
}

/** formatRow is a format's row, typed as the general row. */
export function formatRow(format: SourceFormat): FormatRow {
  return FORMATS[format];
}

/** targetMediaTypes gives the Content-Type and file extension of each output format. */
export const targetMediaTypes: Record<TargetFormat, { contentType: string; extension: string }> = {
  pdf: { contentType: "application/pdf", extension: "pdf" },
  docx: { contentType: FORMATS.docx.mediaType, extension: FORMATS.docx.extension },
};
