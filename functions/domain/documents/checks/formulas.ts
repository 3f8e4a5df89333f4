import { decodeXml } from "#domain/documents/checks/external-references.ts";
import { SignetError } from "#domain/shared/errors.ts";
import { decodeUtf8, replaceInSlices, TimeSlice, wordsIn } from "#domain/shared/time-slice.ts";
import { readZipEntryAsync, type ZipContainer, type ZipLimits } from "#domain/shared/zip-container.ts";

/**
 * Spreadsheet formulas that reach outside the workbook or into the converting machine: INDIRECT
 * and WEBSERVICE take any URL or path a cell computes (LibreOffice 7.4 crashes on an INDIRECT to a
 * file: URL), FILTERXML and DDE read what those bring, INFO and CELL("filename") print the machine's
 * system and work folder; a reference to a file: URL or a HYPERLINK to one names a local file. A
 * formula's target can be computed from other cells, so these functions are refused whatever their
 * arguments; the message names the cell.
 */
const REACHING_OUT = /\b(INDIRECT|WEBSERVICE|FILTERXML|DDE|INFO)\s*\(|\bCELL\s*\(\s*"\s*filename|file:/i;

// Formula text in SpreadsheetML: cells (<f>), defined names, conditional formats and validations.
const XLSX_FORMULA = /<(?:[\w.-]+:)?c\b[^>]*?\sr\s*=\s*"([^"]*)"[^>]*>|<((?:[\w.-]+:)?(?:f|formula|formula1|formula2|definedName))\b[^>]*>([^<]*)<\/\2\s*>/g;
// Formula attributes in OpenDocument: cells, conditions, validations, chart ranges.
const ODF_FORMULA = /<(?:[\w.-]+:)?table-cell\b|\s((?:[\w.-]+:)?(?:formula|condition|expression))\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** refuse is the 422 naming the cell (or the part) whose formula reaches outside the workbook. */
function refuse(what: string, where: string, formula: string): SignetError {
  const name = REACHING_OUT.exec(formula)?.[1]?.toUpperCase() ?? (/\bCELL\s*\(\s*"\s*filename/i.test(formula) ? 'CELL("filename")' : "a file: reference");
  return new SignetError(
    "INVALID_DOCUMENT",
    `The ${what} has a formula in ${where} that uses ${name}, which reads from outside the workbook or from the converting machine; Signet refuses such formulas. Replace the formula by its value and upload the workbook again.`,
    { details: [{ field: "file", issue: `${where}: ${name}` }] },
  );
}

/** scanXlsxPart refuses the first formula of one SpreadsheetML part that reaches outside, naming its cell. */
async function scanXlsxPart(text: string, part: string, what: string, slice: TimeSlice): Promise<void> {
  let cell: string | undefined;
  let found: SignetError | undefined;
  await replaceInSlices(
    text,
    XLSX_FORMULA,
    (match) => {
      if (match[1] !== undefined) cell = match[1];
      else if (!found && REACHING_OUT.test(decodeXml(match[3] ?? ""))) {
        const element = (match[2] ?? "").replace(/^[\w.-]+:/, "");
        found = refuse(what, element === "f" && cell ? `cell ${cell} (${part})` : `${part} (${element})`, decodeXml(match[3] ?? ""));
      }
      return match[0];
    },
    slice,
  );
  if (found) throw found;
}

/** scanOdfPart refuses the first formula attribute of one OpenDocument part that reaches outside, naming the cell by its position. */
async function scanOdfPart(text: string, part: string, what: string, slice: TimeSlice): Promise<void> {
  let cells = 0;
  let found: SignetError | undefined;
  await replaceInSlices(
    text,
    ODF_FORMULA,
    (match) => {
      if (match[1] === undefined) cells++;
      else if (!found && REACHING_OUT.test(decodeXml(match[2] ?? match[3] ?? ""))) {
        found = refuse(what, `${part} (cell number ${cells}, ${match[1]})`, decodeXml(match[2] ?? match[3] ?? ""));
      }
      return match[0];
    },
    slice,
  );
  if (found) throw found;
}

/**
 * checkWorkbookFormulas refuses an XLSX or ODS whose formulas reach outside the workbook (see
 * REACHING_OUT) with 422 INVALID_DOCUMENT naming the cell. Only parts that can hold a formula are
 * decoded; the scan pauses every few milliseconds.
 */
export async function checkWorkbookFormulas(zip: ZipContainer, kind: "xlsx" | "ods", limits: ZipLimits): Promise<void> {
  const { bytes, entries } = zip;
  const what = kind === "xlsx" ? "XLSX" : "OpenDocument spreadsheet";
  const markers = kind === "xlsx" ? ["<f>", "<f ", ":f>", ":f ", "formula", "definedName"] : ["formula", "condition", "expression"];
  const slice = new TimeSlice();
  let budget = limits.maxUncompressedBytes;
  for (const entry of entries) {
    if (!entry.name.toLowerCase().endsWith(".xml")) continue;
    const data = await readZipEntryAsync(bytes, entry, budget, what);
    budget -= data.length;
    if ((await wordsIn(data, markers, slice)).size === 0) continue;
    const text = await decodeUtf8(data, slice);
    if (kind === "xlsx") await scanXlsxPart(text, entry.name, what, slice);
    else await scanOdfPart(text, entry.name, what, slice);
  }
}
