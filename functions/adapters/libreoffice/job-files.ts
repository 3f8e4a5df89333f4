import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { decodeText } from "#domain/documents/checks/container-checks.ts";
import type { ConversionJob } from "#domain/documents/converter.ts";
import { FORMATS, type SourceFamily, type SourceFormat, type TargetFormat, targetMediaTypes } from "#domain/documents/formats.ts";
import { detectDocumentType } from "#domain/shared/document.ts";
import { markdownToHtml, sanitizeHtml } from "#domain/documents/markup.ts";
import { readZipDirectory } from "#domain/shared/zip-container.ts";

// Import filters are forced (no type detection): the bytes were checked to be this format.
const importFilters: Record<SourceFormat, { filter: string; extension: string; options?: string }> = {
  docx: { filter: "MS Word 2007 XML", extension: "docx" },
  doc: { filter: "MS Word 97", extension: "doc" },
  odt: { filter: "writer8", extension: "odt" },
  rtf: { filter: "Rich Text Format", extension: "rtf" },
  html: { filter: "HTML (StarWriter)", extension: "html" },
  md: { filter: "HTML (StarWriter)", extension: "html" },
  xlsx: { filter: "Calc MS Excel 2007 XML", extension: "xlsx" },
  xls: { filter: "MS Excel 97", extension: "xls" },
  ods: { filter: "calc8", extension: "ods" },
  // Comma-separated, double-quoted, UTF-8 (76), from line 1, system language, special numbers
  // detected (the defaults), and token 13 "evaluate formulas" false: a cell "=CELL(""filename"")"
  // or "=INFO(""osversion"")" is shown as the text it is, never computed on this machine.
  csv: { filter: "Text - txt - csv (StarCalc)", extension: "csv", options: "44,34,76,1,,0,false,true,true,false,false,0,false" },
  pptx: { filter: "Impress MS PowerPoint 2007 XML", extension: "pptx" },
  ppt: { filter: "MS PowerPoint 97", extension: "ppt" },
  odp: { filter: "impress8", extension: "odp" },
};

// Each application has its own PDF export filter; DOCX comes out of Writer only.
const pdfExportFilters: Record<SourceFamily, string> = { writer: "writer_pdf_Export", calc: "calc_pdf_Export", impress: "impress_pdf_Export" };
const docxExportFilter = "MS Word 2007 XML";

/** JobFilters are the filter names and export options of one job, for the warm driver and for soffice alike. */
export interface JobFilters {
  inFilter: string;
  inFilterOptions?: string;
  outFilter: string;
  filterData?: Record<string, string | number>;
}

/** filtersOf picks the import and export filters of a job, with PDF/A and the page range it asks for. */
export function filtersOf(job: JobFiles): JobFilters {
  const input = importFilters[job.from];
  const filterData: Record<string, string | number> = {
    ...(job.pdfa ? { SelectPdfVersion: 2 } : {}),
    ...(job.maxPages !== undefined ? { PageRange: `1-${job.maxPages + 1}` } : {}),
  };
  return {
    inFilter: input.filter,
    ...(input.options ? { inFilterOptions: input.options } : {}),
    outFilter: job.to === "pdf" ? pdfExportFilters[FORMATS[job.from].family] : docxExportFilter,
    ...(Object.keys(filterData).length > 0 ? { filterData } : {}),
  };
}

/** JobFiles are one job's input file and output folder inside its private job folder. */
export interface JobFiles {
  /** The job's folder, holding the input and the output folder. */
  dir: string;
  inputPath: string;
  outDir: string;
  outputPath: string;
  from: SourceFormat;
  to: TargetFormat;
  pdfa: boolean;
  /** Export at most this many pages plus one (spreadsheets and presentations). */
  maxPages?: number;
}

/** writeInput writes the job's input (Markdown and HTML as sanitized HTML) into jobDir. */
export async function writeInput(request: ConversionJob, jobDir: string): Promise<JobFiles> {
  const input = importFilters[request.from];
  const inputPath = join(jobDir, `document.${input.extension}`);
  let bytes: Uint8Array | string = request.bytes;
  // LibreOffice 7.4 has no Markdown import, and its HTML import fetches linked resources:
  // both arrive as sanitized, self-contained HTML.
  // The text is decoded once: by intake (request.text) or, for the warm-up document, here.
  if (request.from === "md") bytes = markdownToHtml(request.text ?? decodeText(request.bytes, "Markdown"));
  if (request.from === "html") bytes = sanitizeHtml(request.text ?? decodeText(request.bytes, "HTML"));
  await writeFile(inputPath, bytes, { mode: 0o600 });
  const outDir = join(jobDir, "out");
  await mkdir(outDir, { mode: 0o700 });
  const outputPath = join(outDir, `document.${targetMediaTypes[request.to].extension}`);
  const pages = request.maxPages !== undefined ? { maxPages: request.maxPages } : {};
  return { dir: jobDir, inputPath, outDir, outputPath, from: request.from, to: request.to, pdfa: request.pdfa === true, ...pages };
}

/**
 * freshOutput gives the job a new, empty output folder: a failed attempt can leave a partial
 * output, and readOutput must never take that leftover for the retry's result.
 */
export async function freshOutput(job: JobFiles, name: string): Promise<JobFiles> {
  await rm(job.outDir, { recursive: true, force: true });
  const outDir = join(job.outDir, "..", `out-${name}`);
  await mkdir(outDir, { mode: 0o700 });
  return { ...job, outDir, outputPath: join(outDir, `document.${targetMediaTypes[job.to].extension}`) };
}

/**
 * crashesUnoLoad tells a document that LibreOffice 7.4 cannot load over UNO without crashing (the
 * warm path's loadComponentFromURL): a DOCX with comments (word/comments.xml), as SuperDoc's public
 * advanced-text.docx and resolved-comment.docx or test/helpers' commentedDocx; the same file
 * without its comment references loads fine. Such documents are handed over to the warm instance as a --convert-to job.
 */
export function crashesUnoLoad(request: ConversionJob): boolean {
  if (request.from !== "docx") return false;
  try {
    // The directory intake read; read here only for a job that did not come through intake.
    const entries = request.entries ?? readZipDirectory(request.bytes, { maxEntries: 100_000, maxUncompressedBytes: Number.MAX_SAFE_INTEGER });
    return entries.some((entry) => entry.name === "word/comments.xml");
  } catch {
    return false;
  }
}

/** readOutput reads and checks the output: success is a file of the target type, not an exit code. */
export async function readOutput(job: JobFiles): Promise<Buffer | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(job.outputPath);
  } catch {
    return undefined;
  }
  if (job.to === "pdf") return bytes.subarray(0, 5).toString("latin1") === "%PDF-" ? bytes : undefined;
  return detectDocumentType(bytes, { maxEntries: 100_000, maxUncompressedBytes: Number.MAX_SAFE_INTEGER }) === "docx" ? bytes : undefined;
}
