import PizZip from "pizzip";

/** W_NAMESPACES declares the namespaces the test documents use. */
const W_NAMESPACES =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" ' +
  'xmlns:w14="http://schemas.microsoft.com/office/word/2010/wordml" ' +
  'xmlns:w15="http://schemas.microsoft.com/office/word/2012/wordml" ' +
  'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ' +
  'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" ' +
  'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" ' +
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" mc:Ignorable="w14 w15"';

/** DocxParts is the XML a test document is built from (inner XML of body/header/footer). */
export interface DocxParts {
  body: string;
  header?: string;
  footer?: string;
  /** Inner XML of footnote id 1 (paragraphs). */
  footnote?: string;
  /** Inner XML of endnote id 1 (paragraphs). */
  endnote?: string;
  /** Section properties; a Letter page with 1-inch margins when absent. */
  sectPr?: string;
}

const DEFAULT_SECT_PR =
  '<w:sectPr><w:pgSz w:w="12240" w:h="15840"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="720" w:footer="720" w:gutter="0"/></w:sectPr>';

/** buildDocx writes a minimal valid DOCX from the given XML fragments. */
export function buildDocx(parts: DocxParts): Buffer {
  const zip = new PizZip();
  const overrides: string[] = [
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>',
  ];
  const relationships: string[] = [];
  const references: string[] = [];
  if (parts.header !== undefined) {
    zip.file("word/header1.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:hdr ${W_NAMESPACES}>${parts.header}</w:hdr>`);
    overrides.push('<Override PartName="/word/header1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/>');
    relationships.push('<Relationship Id="rIdH1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header1.xml"/>');
    references.push('<w:headerReference w:type="default" r:id="rIdH1"/>');
  }
  if (parts.footer !== undefined) {
    zip.file("word/footer1.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:ftr ${W_NAMESPACES}>${parts.footer}</w:ftr>`);
    overrides.push('<Override PartName="/word/footer1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/>');
    relationships.push('<Relationship Id="rIdF1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml"/>');
    references.push('<w:footerReference w:type="default" r:id="rIdF1"/>');
  }
  if (parts.footnote !== undefined) {
    zip.file(
      "word/footnotes.xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes ${W_NAMESPACES}>` +
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>' +
        '<w:footnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:footnote>' +
        `<w:footnote w:id="1">${parts.footnote}</w:footnote></w:footnotes>`,
    );
    overrides.push('<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/>');
    relationships.push(
      '<Relationship Id="rIdFn" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes" Target="footnotes.xml"/>',
    );
  }
  if (parts.endnote !== undefined) {
    zip.file(
      "word/endnotes.xml",
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:endnotes ${W_NAMESPACES}>` +
        '<w:endnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:endnote>' +
        '<w:endnote w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p></w:endnote>' +
        `<w:endnote w:id="1">${parts.endnote}</w:endnote></w:endnotes>`,
    );
    overrides.push('<Override PartName="/word/endnotes.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.endnotes+xml"/>');
    relationships.push('<Relationship Id="rIdEn" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/endnotes" Target="endnotes.xml"/>');
  }
  const sectPr = (parts.sectPr ?? DEFAULT_SECT_PR).replace("<w:sectPr>", `<w:sectPr>${references.join("")}`);
  zip.file(
    "[Content_Types].xml",
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>' +
      `${overrides.join("")}</Types>`,
  );
  zip.file(
    "_rels/.rels",
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
      '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>',
  );
  zip.file(
    "word/_rels/document.xml.rels",
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships.join("")}</Relationships>`,
  );
  zip.file(
    "word/document.xml",
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ${W_NAMESPACES}><w:body>${parts.body}${sectPr}</w:body></w:document>`,
  );
  return zip.generate({ type: "nodebuffer", compression: "DEFLATE" });
}

/** p wraps runs in a paragraph. */
export const p = (inner: string) => `<w:p>${inner}</w:p>`;

/** run is a text run, optionally with run properties. */
export const run = (text: string, rPr = "") => `<w:r>${rPr ? `<w:rPr>${rPr}</w:rPr>` : ""}<w:t xml:space="preserve">${text}</w:t></w:r>`;

/** sdtProps builds w:sdtPr from a tag, w:id and extra XML. */
function sdtProps(options: { tag?: string; id?: string; alias?: string; extra?: string }): string {
  const escapeAttr = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  return (
    "<w:sdtPr>" +
    (options.alias ? `<w:alias w:val="${escapeAttr(options.alias)}"/>` : "") +
    (options.tag !== undefined ? `<w:tag w:val="${escapeAttr(options.tag)}"/>` : "") +
    (options.id ? `<w:id w:val="${options.id}"/>` : "") +
    (options.extra ?? "") +
    "</w:sdtPr>"
  );
}

/** inlineControl is a run-level content control showing placeholder text. */
export function inlineControl(options: { tag?: string; id?: string; alias?: string; extra?: string; placeholder?: string; rPr?: string }): string {
  const rPr = `<w:rStyle w:val="PlaceholderText"/>${options.rPr ?? ""}`;
  return `<w:sdt>${sdtProps({ ...options, extra: `<w:showingPlcHdr/>${options.extra ?? ""}` })}<w:sdtContent>${run(options.placeholder ?? "Click here", rPr)}</w:sdtContent></w:sdt>`;
}

/** blockControl is a paragraph-level content control around the given block XML. */
export function blockControl(options: { tag?: string; id?: string; alias?: string; extra?: string }, content: string): string {
  return `<w:sdt>${sdtProps(options)}<w:sdtContent>${content}</w:sdtContent></w:sdt>`;
}

/**
 * repeatingSection is a Word 2013 repeating section control (w15:repeatingSection) holding one item
 * (w15:repeatingSectionItem) around the given content: paragraphs, or table rows inside a w:tbl.
 */
export function repeatingSection(options: { tag?: string; id?: string; alias?: string }, itemContent: string): string {
  return blockControl(
    { ...options, extra: "<w15:repeatingSection/>" },
    blockControl({ ...(options.id ? { id: `${options.id}1` } : {}), extra: "<w15:repeatingSectionItem/>" }, itemContent),
  );
}

/** checkboxControl is a Word 2010 checkbox control. */
export function checkboxControl(options: { tag?: string; id?: string; checked?: boolean }): string {
  const checked = options.checked ?? false;
  const extra =
    `<w14:checkbox><w14:checked w14:val="${checked ? 1 : 0}"/>` +
    '<w14:checkedState w14:val="2612" w14:font="MS Gothic"/><w14:uncheckedState w14:val="2610" w14:font="MS Gothic"/></w14:checkbox>';
  return `<w:sdt>${sdtProps({ ...options, extra })}<w:sdtContent><w:r><w:rPr><w:rFonts w:ascii="MS Gothic" w:hAnsi="MS Gothic"/></w:rPr><w:t>${checked ? "\u2612" : "\u2610"}</w:t></w:r></w:sdtContent></w:sdt>`;
}

/** table builds a table with a grid and rows of cell texts. */
export function table(rows: string[][], options: { widths?: number[]; cellRPr?: string } = {}): string {
  const columns = rows[0]?.length ?? 1;
  const widths = options.widths ?? Array.from({ length: columns }, () => Math.floor(9000 / columns));
  return (
    '<w:tbl><w:tblPr><w:tblW w:w="9000" w:type="dxa"/><w:tblBorders><w:top w:val="single" w:sz="4"/><w:bottom w:val="single" w:sz="4"/><w:insideH w:val="single" w:sz="4"/><w:insideV w:val="single" w:sz="4"/><w:left w:val="single" w:sz="4"/><w:right w:val="single" w:sz="4"/></w:tblBorders></w:tblPr>' +
    `<w:tblGrid>${widths.map((w) => `<w:gridCol w:w="${w}"/>`).join("")}</w:tblGrid>` +
    rows
      .map(
        (row) =>
          `<w:tr>${row.map((cell, i) => `<w:tc><w:tcPr><w:tcW w:w="${widths[i]}" w:type="dxa"/></w:tcPr>${p(run(cell, options.cellRPr ?? ""))}</w:tc>`).join("")}</w:tr>`,
      )
      .join("") +
    "</w:tbl>"
  );
}

/** readPart returns one part of a DOCX as text. */
export function readPart(docx: Uint8Array, name: string): string {
  const file = new PizZip(docx).file(name);
  if (!file) throw new Error(`no part ${name}`);
  return file.asText();
}

/** readPartBytes returns one part of a DOCX as bytes (media). */
export function readPartBytes(docx: Uint8Array, name: string): Buffer {
  const file = new PizZip(docx).file(name);
  if (!file) throw new Error(`no part ${name}`);
  return Buffer.from(file.asUint8Array());
}

/** partNames lists the entries of a DOCX. */
export function partNames(docx: Uint8Array): string[] {
  return Object.keys(new PizZip(docx).files);
}
