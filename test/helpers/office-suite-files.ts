// Spreadsheets and presentations for the conversion tests, written as OpenDocument packages by
// hand (ODS, ODP) and saved by LibreOffice as XLSX, XLS, PPTX and PPT (sofficeConvert).
import PizZip from "pizzip";

const NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" ' +
  'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" office:version="1.2"';

/** Cell is a spreadsheet cell: text, a number, or a formula with its cached value (NaN: none). */
export type Cell = string | number | { formula: string; value: number };

/** Sheet is one sheet of a test workbook. */
export interface Sheet {
  name: string;
  rows: Cell[][];
}

const xmlEscape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function cell(value: Cell): string {
  if (typeof value === "string") return `<table:table-cell office:value-type="string"><text:p>${xmlEscape(value)}</text:p></table:table-cell>`;
  if (typeof value === "number") return `<table:table-cell office:value-type="float" office:value="${value}"><text:p>${value}</text:p></table:table-cell>`;
  // A NaN value writes the formula with no cached result, so LibreOffice has to calculate it.
  if (Number.isNaN(value.value)) return `<table:table-cell table:formula="${xmlEscape(value.formula)}"/>`;
  return `<table:table-cell table:formula="${xmlEscape(value.formula)}" office:value-type="float" office:value="${value.value}"><text:p>${value.value}</text:p></table:table-cell>`;
}

function openDocument(mimetype: string, body: string, files: Record<string, Uint8Array> = {}): Buffer {
  const zip = new PizZip();
  zip.file("mimetype", mimetype, { compression: "STORE" });
  zip.file("content.xml", `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${NS}><office:body>${body}</office:body></office:document-content>`);
  const entries = Object.keys(files).map((name) => `<manifest:file-entry manifest:full-path="${name}" manifest:media-type="image/png"/>`);
  for (const [name, data] of Object.entries(files)) zip.file(name, data);
  zip.file(
    "META-INF/manifest.xml",
    '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">' +
      `<manifest:file-entry manifest:full-path="/" manifest:media-type="${mimetype}"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>` +
      `${entries.join("")}</manifest:manifest>`,
  );
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

/** buildOds writes an OpenDocument spreadsheet with the given sheets. */
export function buildOds(sheets: Sheet[]): Buffer {
  const tables = sheets.map(
    (sheet) =>
      `<table:table table:name="${xmlEscape(sheet.name)}">${sheet.rows.map((row) => `<table:table-row>${row.map(cell).join("")}</table:table-row>`).join("")}</table:table>`,
  );
  return openDocument("application/vnd.oasis.opendocument.spreadsheet", `<office:spreadsheet>${tables.join("")}</office:spreadsheet>`);
}

/** Slide is one slide of a test presentation: a title line and, optionally, a picture. */
export interface Slide {
  text: string;
  picture?: Uint8Array;
}

/** buildOdp writes an OpenDocument presentation, one page per slide. */
export function buildOdp(slides: Slide[]): Buffer {
  const files: Record<string, Uint8Array> = {};
  const pages = slides.map((slide, i) => {
    let picture = "";
    if (slide.picture) {
      const name = `Pictures/slide${i + 1}.png`;
      files[name] = slide.picture;
      picture = `<draw:frame svg:x="2cm" svg:y="6cm" svg:width="8cm" svg:height="6cm"><draw:image xlink:href="${name}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>`;
    }
    return `<draw:page draw:name="page${i + 1}"><draw:frame svg:x="2cm" svg:y="2cm" svg:width="20cm" svg:height="3cm"><draw:text-box><text:p>${xmlEscape(slide.text)}</text:p></draw:text-box></draw:frame>${picture}</draw:page>`;
  });
  return openDocument("application/vnd.oasis.opendocument.presentation", `<office:presentation>${pages.join("")}</office:presentation>`, files);
}
