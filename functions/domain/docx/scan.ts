import { SaxesParser, type SaxesTagPlain } from "saxes";
import { SignetError } from "#domain/shared/errors.ts";
import { escapeAttribute, NS, rejectDtd } from "#domain/docx/xml.ts";

/** Span is a [start, end) range of one element in a part's XML text, in UTF-16 string indices. */
export interface Span {
  start: number;
  end: number;
}

/** ControlSpan is an outermost content control (w:sdt) and the local name of its parent element. */
export interface ControlSpan extends Span {
  parent: string;
}

/** PartScan is what one pass over a part's XML found. */
export interface PartScan {
  /** The namespace declarations of the root element (` xmlns:w="..."...`), values re-escaped for double quotes. */
  rootDeclarations: string;
  /** Prefix -> namespace URI bound on the root element. */
  prefixes: Map<string, string>;
  /** Outermost w:sdt elements; nested ones live inside these. */
  controls: ControlSpan[];
  /** w:sectPr elements (section properties) in document order. */
  sections: Span[];
  /** The text of every paragraph (w:t content joined), for {{placeholder}} detection. */
  paragraphTexts: string[];
  /** Outermost paragraphs whose text (nested paragraphs included) holds "{{": all docxtemplater needs to see. */
  braceParagraphs: Span[];
  /** Largest wp:docPr id seen (drawing object ids must stay unique). */
  maxDrawingId: number;
}

const refused = (what: string) =>
  new SignetError(
    "INVALID_DOCUMENT",
    `The DOCX part ${what} declares a DTD or entities, which Signet refuses for safety; save the document again from Word or LibreOffice.`,
  );

/**
 * scanPart makes one streaming pass over a WordprocessingML part with the saxes XML parser. It does
 * not build a tree: saxes checks well-formedness (nesting, names, attributes, characters, a single
 * root) and decodes text, and scanPart records where the content controls and section properties
 * are, so only those fragments are parsed into a DOM (a 30-page document body is mostly text the
 * filler never touches, and a full DOM parse of it costs several times the whole fill).
 *
 * DTDs and entity declarations are refused before parsing (rejectDtd), and again if saxes ever
 * reports a doctype. Element names are matched by the prefixes the root element binds (as Word and
 * LibreOffice write them); saxes runs without namespace processing, which is faster and matches
 * how the fragments are spliced back by qualified name.
 *
 * Span offsets are UTF-16 indices into `xml` (what String#slice takes): saxes' `position` is such
 * an index, just past the `>` that completed the tag when opentag/closetag fire, and a start tag
 * begins at the last `<` before that (`<` cannot occur unescaped inside a tag).
 */
export async function scanPart(xml: string, what: string): Promise<PartScan> {
  rejectDtd(xml, what);
  const result: PartScan = { rootDeclarations: "", prefixes: new Map(), controls: [], sections: [], paragraphTexts: [], braceParagraphs: [], maxDrawingId: 0 };
  const stack: string[] = [];
  const paragraphs: string[][] = [];
  let names = { sdt: "", sectPr: "", p: "", t: "", docPr: "" };
  let controlDepth = -1;
  let controlStart = 0;
  let controlParent = "";
  const sectionStarts: number[] = [];
  let inText = false;
  let lastClosed = "";
  // The outermost open paragraph: where it starts and its text so far (nested paragraphs included).
  let outerStart = -1;
  let outerText: string[] = [];

  const parser = new SaxesParser({ xmlns: false, position: true });
  const tagStart = () => xml.lastIndexOf("<", parser.position - 1);
  parser.on("doctype", () => {
    throw refused(what);
  });
  const addText = (text: string) => {
    if (!inText) return;
    paragraphs.at(-1)?.push(text);
    if (outerStart >= 0) outerText.push(text);
  };
  parser.on("text", addText);
  parser.on("cdata", addText);
  parser.on("opentag", (tag: SaxesTagPlain) => {
    const name = tag.name;
    if (stack.length === 0) {
      readRoot(tag.attributes, result);
      const w = [...result.prefixes].find(([, uri]) => uri === NS.w)?.[0];
      const wp = [...result.prefixes].find(([, uri]) => uri === NS.wp)?.[0];
      const q = (prefix: string | undefined, local: string) => (prefix === undefined ? `\u0000${local}` : prefix ? `${prefix}:${local}` : local);
      names = { sdt: q(w, "sdt"), sectPr: q(w, "sectPr"), p: q(w, "p"), t: q(w, "t"), docPr: q(wp, "docPr") };
    }
    if (name === names.docPr) {
      const id = tag.attributes.id;
      if (id !== undefined && /^\d+$/.test(id)) result.maxDrawingId = Math.max(result.maxDrawingId, Number(id));
    }
    if (name === names.sdt && controlDepth < 0) {
      controlStart = tagStart();
      controlParent = localName(stack.at(-1) ?? "");
      controlDepth = stack.length;
    }
    if (name === names.t) inText = true;
    else if (name === names.p) {
      if (paragraphs.length === 0) {
        outerStart = tagStart();
        outerText = [];
      }
      paragraphs.push([]);
    } else if (name === names.sectPr) sectionStarts.push(tagStart());
    // saxes reports a self-closing tag as opentag then closetag, so every element is pushed and popped.
    stack.push(name);
  });
  parser.on("closetag", (tag: SaxesTagPlain) => {
    const name = tag.name;
    lastClosed = name;
    stack.pop();
    const end = parser.position;
    if (name === names.t) inText = false;
    else if (name === names.p) {
      result.paragraphTexts.push((paragraphs.pop() ?? []).join(""));
      if (paragraphs.length === 0 && outerStart >= 0) {
        if (outerText.join("").includes("{{")) result.braceParagraphs.push({ start: outerStart, end });
        outerStart = -1;
      }
    } else if (name === names.sectPr) {
      const start = sectionStarts.pop();
      if (start !== undefined) result.sections.push({ start, end });
    }
    if (name === names.sdt && stack.length === controlDepth) {
      result.controls.push({ start: controlStart, end, parent: controlParent });
      controlDepth = -1;
    }
  });

  try {
    // Fed in slices with a turn of the event loop between them, so a long part never holds the
    // loop for more than one slice (saxes keeps positions absolute across writes).
    for (let at = 0; at < xml.length; at += SCAN_SLICE) {
      if (at > 0) await yieldToLoop();
      parser.write(xml.slice(at, at + SCAN_SLICE));
    }
    parser.close();
  } catch (error) {
    if (error instanceof SignetError) throw error;
    let message = readable(error instanceof Error ? error.message : String(error));
    // saxes names neither tag when an end tag does not match; the element it closed last is the open one.
    if (message.endsWith("unexpected close tag")) message += `; <${lastClosed}> is still open`;
    throw new SignetError("INVALID_DOCUMENT", `The DOCX part ${what} is not well-formed XML (${message}).`, { cause: error });
  }
  return result;
}

/** SCAN_SLICE is how many UTF-16 units of XML scanPart parses between two turns of the event loop. */
const SCAN_SLICE = 256 * 1024;

/** yieldToLoop lets pending I/O callbacks (another request, a health check) run before going on. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** readable turns saxes' "line:column: message." into "line L, column C: message". */
function readable(message: string): string {
  const match = /^(?:[^:]*:)?(\d+):(\d+): (.*?)\.?$/s.exec(message);
  return match ? `line ${match[1]}, column ${match[2]}: ${match[3]}` : message;
}

function localName(qualified: string): string {
  const colon = qualified.indexOf(":");
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

function readRoot(attributes: Record<string, string>, result: PartScan): void {
  const declarations: string[] = [];
  for (const [name, value] of Object.entries(attributes)) {
    if (name !== "xmlns" && !name.startsWith("xmlns:")) continue;
    declarations.push(` ${name}="${escapeAttribute(value)}"`);
    result.prefixes.set(name === "xmlns" ? "" : name.slice(6), value);
  }
  result.rootDeclarations = declarations.join("") || " ";
}
