import { SignetError } from "#domain/shared/errors.ts";
import type { DocxPackage } from "#domain/docx/package.ts";

/** XmlBudget bounds the XML work one DOCX may cause (the limits in docs/configuration.md; a 147 KB DOCX of tiny controls held the loop 20 s). */
export interface XmlBudget {
  /** Content controls (w:sdt elements, nested ones included) in the whole package. */
  maxDocxControls: number;
  /** XML elements in every .xml and .rels part of the package together (these are scanned). */
  maxDocxXmlNodes: number;
  /** XML elements inside content controls, the controls included (these are parsed into a DOM). */
  maxDocxControlNodes: number;
}

/** XmlCount is what countXml found (counting stops just past a limit). */
export interface XmlCount {
  elements: number;
  controls: number;
  /** Elements inside content controls, the w:sdt elements included. */
  controlElements: number;
}

/** isXmlPart tells whether a package part is one whose XML Signet (or docxtemplater) may parse. */
function isXmlPart(name: string): boolean {
  return name.endsWith(".xml") || name.endsWith(".rels");
}

/**
 * countXml counts the element start tags and the w:sdt start tags of one XML part's bytes, adding
 * to `count`, and throws PAYLOAD_TOO_LARGE as soon as a count passes its limit. It is a plain scan
 * for `<` over the undecoded bytes (no parsing, no allocation per tag), so refusing a document
 * costs at most one pass up to the limit: a bomb is refused before the parser, the DOM and
 * docxtemplater ever see it. Comments, CDATA and processing instructions are skipped; `<` cannot
 * appear unescaped elsewhere. Inside a control, elements count towards maxDocxControlNodes.
 */
export function countXml(xml: Uint8Array, budget: XmlBudget, count: XmlCount): void {
  const bytes = Buffer.from(xml.buffer, xml.byteOffset, xml.byteLength);
  // Open w:sdt elements around the current position (a nesting count; never below zero).
  let depth = 0;
  for (let i = bytes.indexOf(LT); i >= 0 && i < bytes.length - 1; i = bytes.indexOf(LT, i + 1)) {
    const next = bytes[i + 1];
    if (next === SLASH) {
      if (depth > 0 && isSdtName(bytes, i + 2)) depth--;
      continue;
    }
    if (next === QUESTION) continue;
    if (next === BANG) {
      // Jump over a comment or CDATA section whole: it may hold "<" characters.
      const opening = bytes.toString("latin1", i, i + 9);
      const close = opening.startsWith("<!--") ? bytes.indexOf("-->", i + 4) : opening === "<![CDATA[" ? bytes.indexOf("]]>", i + 9) : i;
      if (close < 0) return;
      i = close;
      continue;
    }
    if (++count.elements > budget.maxDocxXmlNodes) throw tooManyNodes(budget);
    const control = isSdtName(bytes, i + 1);
    if (control) {
      if (++count.controls > budget.maxDocxControls) throw tooManyControls(budget);
      const close = bytes.indexOf(GT, i);
      if (close > 0 && bytes[close - 1] !== SLASH) depth++;
    }
    if ((control || depth > 0) && ++count.controlElements > budget.maxDocxControlNodes) throw tooManyControlNodes(budget);
  }
}

/** checkXmlBudget counts every XML part of a package against the budget (see countXml). */
export function checkXmlBudget(pkg: Pick<DocxPackage, "names" | "bytes">, budget: XmlBudget): XmlCount {
  const count: XmlCount = { elements: 0, controls: 0, controlElements: 0 };
  for (const name of pkg.names()) {
    if (!isXmlPart(name)) continue;
    const xml = pkg.bytes(name);
    if (xml !== undefined) countXml(xml, budget, count);
  }
  return count;
}

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const QUESTION = 0x3f;
const BANG = 0x21;
const COLON = 0x3a;

// True when the tag name starting at `at` has the local name "sdt" (any prefix).
function isSdtName(bytes: Uint8Array, at: number): boolean {
  let end = at;
  for (;;) {
    const c = bytes[end];
    // Name characters end at whitespace, "/", ">" or the end of the part.
    if (c === undefined || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === SLASH || c === GT) break;
    end++;
    if (end - at > 64) return false;
  }
  const n = end - at;
  return n >= 3 && bytes[end - 3] === 0x73 && bytes[end - 2] === 0x64 && bytes[end - 1] === 0x74 && (n === 3 || bytes[end - 4] === COLON);
}

function tooManyNodes(budget: XmlBudget): SignetError {
  return new SignetError(
    "PAYLOAD_TOO_LARGE",
    `The DOCX has more than ${budget.maxDocxXmlNodes} XML elements, the limit per document; split the document or remove unused content.`,
    { details: [{ field: "document", issue: `more than ${budget.maxDocxXmlNodes} XML elements` }] },
  );
}

function tooManyControlNodes(budget: XmlBudget): SignetError {
  return new SignetError(
    "PAYLOAD_TOO_LARGE",
    `The DOCX's content controls hold more than ${budget.maxDocxControlNodes} XML elements, the limit per document; keep large tables and text outside the controls.`,
    { details: [{ field: "document", issue: `more than ${budget.maxDocxControlNodes} XML elements inside content controls` }] },
  );
}

function tooManyControls(budget: XmlBudget): SignetError {
  return new SignetError(
    "PAYLOAD_TOO_LARGE",
    `The DOCX has more than ${budget.maxDocxControls} content controls, the limit per document; use fewer controls or split the template.`,
    { details: [{ field: "document", issue: `more than ${budget.maxDocxControls} content controls` }] },
  );
}
