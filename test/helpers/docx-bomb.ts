// DOCX files for the XML budget: the bomb a hostile client sent, and the
// heaviest documents the default limits still allow, for the hostile test and bench:docx-bomb.
import { blockControl, buildDocx, inlineControl, p, run } from "#test/helpers/docx-builder.ts";

/** TINY_CONTROL is the repeated unit of the reported bomb: an empty inline content control. */
const TINY_CONTROL = "<w:sdt><w:sdtPr/><w:sdtContent/></w:sdt>";

/** sdtBomb is a small DOCX whose document.xml is about `xmlBytes` of tiny w:sdt controls (40 MB: about 150 KB zipped). */
export function sdtBomb(xmlBytes = 40 * 1024 * 1024): Buffer {
  return buildDocx({ body: p(TINY_CONTROL.repeat(Math.floor(xmlBytes / TINY_CONTROL.length))) });
}

/** nodeBomb is a small DOCX whose document.xml is about `xmlBytes` of empty runs (many elements, no control). */
export function nodeBomb(xmlBytes = 40 * 1024 * 1024): Buffer {
  return buildDocx({ body: p("<w:r/>".repeat(Math.floor(xmlBytes / 6))) });
}

/** WorstLimits are the XML limits the worst allowed documents are built up to. */
export interface WorstLimits {
  maxDocxControls: number;
  maxDocxXmlNodes: number;
  maxDocxControlNodes: number;
}

// Elements the builder's package has besides the body (content types, relationships, section).
const PACKAGE_ELEMENTS = 40;

/** elementsIn counts the start tags of an XML fragment. */
const elementsIn = (xml: string) => xml.match(/<[^/?!]/g)?.length ?? 0;

/** filler is `elements` XML elements of plain text in paragraphs of 50 runs (a run is w:r + w:t). */
function filler(elements: number): string {
  const runs = Math.max(0, Math.floor(elements / 2) - Math.ceil(elements / 100));
  const paragraphs: string[] = [];
  for (let i = 0; i < runs; i += 50) paragraphs.push(p(run("lorem ipsum dolor ").repeat(Math.min(50, runs - i))));
  return paragraphs.join("");
}

/**
 * worstControls has as many inline controls (tags c0, c1, ...) as both control limits allow, and
 * plain text up to just under `maxDocxXmlNodes` elements: the most controls and nodes allowed.
 */
export function worstControls(limits: WorstLimits): Buffer {
  const one = (i: number) => inlineControl({ tag: `c${i}` });
  const count = Math.min(limits.maxDocxControls, Math.floor(limits.maxDocxControlNodes / elementsIn(one(0))));
  const controls = p(Array.from({ length: count }, (_, i) => one(i)).join(""));
  return buildDocx({ body: controls + filler(limits.maxDocxXmlNodes - PACKAGE_ELEMENTS - elementsIn(controls)) });
}

/**
 * worstNested puts just under `maxDocxControlNodes` elements inside one block control (tag "all"),
 * all of which go into the DOM, and plain text outside it up to just under `maxDocxXmlNodes`.
 */
export function worstNested(limits: WorstLimits): Buffer {
  const control = blockControl({ tag: "all" }, filler(limits.maxDocxControlNodes - 10));
  return buildDocx({ body: control + filler(limits.maxDocxXmlNodes - PACKAGE_ELEMENTS - elementsIn(control)) });
}

/** worstPlaceholders has a {{name}} placeholder and text up to just under `maxDocxXmlNodes` elements (docxtemplater reads it all). */
export function worstPlaceholders(limits: WorstLimits): Buffer {
  return buildDocx({ body: p(run("Dear {{name}},")) + filler(limits.maxDocxXmlNodes - PACKAGE_ELEMENTS - 10) });
}
