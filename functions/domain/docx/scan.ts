import { SaxesParser, type SaxesTagPlain } from "saxes";
import { SignetError } from "#domain/shared/errors.ts";
import { TagTally, type TagCount } from "#domain/docx/template-tags.ts";
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
  /** The {{tags}} of the part's text and how deep its sections nest (checked before docxtemplater compiles them). */
  tags: TagCount;
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
  const scanner = new PartScanner(xml, what);
  try {
    // Fed in slices with a turn of the event loop between them, so a long part never holds the
    // loop for more than one slice (saxes keeps positions absolute across writes).
    for (let at = 0; at < xml.length; at += SCAN_SLICE) {
      if (at > 0) await yieldToLoop();
      scanner.parser.write(xml.slice(at, at + SCAN_SLICE));
    }
    scanner.parser.close();
  } catch (error) {
    if (error instanceof SignetError) throw error;
    let message = readable(error instanceof Error ? error.message : String(error));
    // saxes names neither tag when an end tag does not match; the element it closed last is the open one.
    if (message.endsWith("unexpected close tag")) message += `; <${scanner.lastClosed}> is still open`;
    throw new SignetError("INVALID_DOCUMENT", `The DOCX part ${what} is not well-formed XML (${message}).`, { cause: error });
  }
  return scanner.result;
}

/** PartScanner is scanPart's working state: the saxes parser and what its events have found so far. */
class PartScanner {
  private readonly tally = new TagTally();
  readonly result: PartScan = {
    rootDeclarations: "",
    prefixes: new Map(),
    controls: [],
    sections: [],
    paragraphTexts: [],
    braceParagraphs: [],
    maxDrawingId: 0,
    tags: this.tally.count,
  };
  readonly parser = new SaxesParser({ xmlns: false, position: true });
  /** lastClosed is the element closed last (named in the error for a mismatched end tag). */
  lastClosed = "";
  private readonly stack: string[] = [];
  private readonly paragraphs: string[][] = [];
  private readonly sectionStarts: number[] = [];
  /** The qualified names of the elements looked for, with the prefixes the root declares. */
  private names = { sdt: "", sectPr: "", p: "", t: "", docPr: "" };
  private control = { depth: -1, start: 0, parent: "" };
  private inText = false;
  /** The outermost open paragraph: where it starts and its text so far (nested paragraphs included). */
  private outer = { start: -1, text: [] as string[] };

  constructor(
    private readonly xml: string,
    what: string,
  ) {
    this.parser.on("doctype", () => {
      throw refused(what);
    });
    this.parser.on("text", (text) => this.addText(text));
    this.parser.on("cdata", (text) => this.addText(text));
    this.parser.on("opentag", (tag: SaxesTagPlain) => this.open(tag));
    this.parser.on("closetag", (tag: SaxesTagPlain) => this.close(tag.name));
  }

  private tagStart(): number {
    return this.xml.lastIndexOf("<", this.parser.position - 1);
  }

  private addText(text: string): void {
    if (!this.inText) return;
    this.tally.feed(text);
    this.paragraphs.at(-1)?.push(text);
    if (this.outer.start >= 0) this.outer.text.push(text);
  }

  private readRootNames(tag: SaxesTagPlain): void {
    readRoot(tag.attributes, this.result);
    const w = [...this.result.prefixes].find(([, uri]) => uri === NS.w)?.[0];
    const wp = [...this.result.prefixes].find(([, uri]) => uri === NS.wp)?.[0];
    const q = (prefix: string | undefined, local: string) => (prefix === undefined ? `\u0000${local}` : prefix ? `${prefix}:${local}` : local);
    this.names = { sdt: q(w, "sdt"), sectPr: q(w, "sectPr"), p: q(w, "p"), t: q(w, "t"), docPr: q(wp, "docPr") };
  }

  private open(tag: SaxesTagPlain): void {
    const name = tag.name;
    if (this.stack.length === 0) this.readRootNames(tag);
    if (name === this.names.docPr) {
      const id = tag.attributes.id;
      if (id !== undefined && /^\d+$/.test(id)) this.result.maxDrawingId = Math.max(this.result.maxDrawingId, Number(id));
    }
    if (name === this.names.sdt && this.control.depth < 0) {
      this.control = { depth: this.stack.length, start: this.tagStart(), parent: localName(this.stack.at(-1) ?? "") };
    }
    if (name === this.names.t) this.inText = true;
    else if (name === this.names.p) {
      if (this.paragraphs.length === 0) this.outer = { start: this.tagStart(), text: [] };
      this.paragraphs.push([]);
    } else if (name === this.names.sectPr) this.sectionStarts.push(this.tagStart());
    // saxes reports a self-closing tag as opentag then closetag, so every element is pushed and popped.
    this.stack.push(name);
  }

  private close(name: string): void {
    this.lastClosed = name;
    this.stack.pop();
    const end = this.parser.position;
    if (name === this.names.t) this.inText = false;
    else if (name === this.names.p) {
      this.result.paragraphTexts.push((this.paragraphs.pop() ?? []).join(""));
      if (this.paragraphs.length === 0 && this.outer.start >= 0) {
        if (this.outer.text.join("").includes("{{")) this.result.braceParagraphs.push({ start: this.outer.start, end });
        this.outer.start = -1;
      }
    } else if (name === this.names.sectPr) {
      const start = this.sectionStarts.pop();
      if (start !== undefined) this.result.sections.push({ start, end });
    }
    if (name === this.names.sdt && this.stack.length === this.control.depth) {
      this.result.controls.push({ start: this.control.start, end, parent: this.control.parent });
      this.control.depth = -1;
    }
  }
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
