import { SignetError } from "#domain/errors.ts";
import { NS } from "#domain/docx/xml.ts";

/** Span is a [start, end) character range of one element in a part's XML text. */
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
  /** The namespace declarations of the root element, as written (` xmlns:w="..."...`). */
  rootDeclarations: string;
  /** Prefix -> namespace URI bound on the root element. */
  prefixes: Map<string, string>;
  /** Outermost w:sdt elements; nested ones live inside these. */
  controls: ControlSpan[];
  /** w:sectPr elements (section properties) in document order. */
  sections: Span[];
  /** The text of every paragraph (w:t content joined), for {{placeholder}} detection. */
  paragraphTexts: string[];
  /** Largest wp:docPr id seen (drawing object ids must stay unique). */
  maxDrawingId: number;
}

const entities: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

/** decodeEntities resolves the predefined XML entities and character references of a text. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return entities[name] ?? whole;
  });
}

const malformed = (what: string, why: string) =>
  new SignetError("INVALID_DOCUMENT", `The DOCX part ${what} is not well-formed XML (${why}).`);

/**
 * scanPart is a single-pass XML tokenizer over a WordprocessingML part. It does not build a tree:
 * it checks nesting, refuses DTDs, and records where the content controls and section properties
 * are, so only those fragments are parsed into a DOM (a 30-page document body is mostly text the
 * filler never touches, and a full DOM parse of it costs several times the whole fill).
 */
export function scanPart(xml: string, what: string): PartScan {
  const result: PartScan = { rootDeclarations: "", prefixes: new Map(), controls: [], sections: [], paragraphTexts: [], maxDrawingId: 0 };
  const stack: string[] = [];
  const paragraphs: string[][] = [];
  let names = { sdt: "", sectPr: "", p: "", t: "", docPr: "" };
  let controlDepth = -1;
  let controlStart = 0;
  let controlParent = "";
  let sectionStart = -1;
  let inText = false;
  let i = 0;
  const n = xml.length;
  while (i < n) {
    const lt = xml.indexOf("<", i);
    if (lt < 0) break;
    if (inText && lt > i) paragraphs.at(-1)?.push(decodeEntities(xml.slice(i, lt)));
    const next = xml.charCodeAt(lt + 1);
    if (next === 63 /* ? */) {
      const end = xml.indexOf("?>", lt + 2);
      if (end < 0) throw malformed(what, "unterminated processing instruction");
      i = end + 2;
      continue;
    }
    if (next === 33 /* ! */) {
      if (xml.startsWith("<!--", lt)) {
        const end = xml.indexOf("-->", lt + 4);
        if (end < 0) throw malformed(what, "unterminated comment");
        i = end + 3;
        continue;
      }
      if (xml.startsWith("<![CDATA[", lt)) {
        const end = xml.indexOf("]]>", lt + 9);
        if (end < 0) throw malformed(what, "unterminated CDATA section");
        if (inText) paragraphs.at(-1)?.push(xml.slice(lt + 9, end));
        i = end + 3;
        continue;
      }
      throw new SignetError("INVALID_DOCUMENT", `The DOCX part ${what} declares a DTD or entities, which Signet refuses for safety; save the document again from Word or LibreOffice.`);
    }
    if (next === 47 /* / */) {
      const gt = xml.indexOf(">", lt + 2);
      if (gt < 0) throw malformed(what, "unterminated end tag");
      const name = xml.slice(lt + 2, gt).trim();
      const open = stack.pop();
      if (open !== name) throw malformed(what, `</${name}> closes <${open ?? "nothing"}>`);
      if (name === names.t) inText = false;
      else if (name === names.p) result.paragraphTexts.push((paragraphs.pop() ?? []).join(""));
      else if (name === names.sectPr && sectionStart >= 0) {
        result.sections.push({ start: sectionStart, end: gt + 1 });
        sectionStart = -1;
      }
      if (name === names.sdt && stack.length === controlDepth) {
        result.controls.push({ start: controlStart, end: gt + 1, parent: controlParent });
        controlDepth = -1;
      }
      i = gt + 1;
      continue;
    }
    // A start tag: find its end, skipping quoted attribute values (which may hold ">").
    let j = lt + 1;
    while (j < n && !isNameEnd(xml.charCodeAt(j))) j++;
    const name = xml.slice(lt + 1, j);
    if (!name) throw malformed(what, "empty tag name");
    let gt = -1;
    for (let k = j; k < n; k++) {
      const c = xml.charCodeAt(k);
      if (c === 34 || c === 39) {
        const close = xml.indexOf(c === 34 ? '"' : "'", k + 1);
        if (close < 0) break;
        k = close;
      } else if (c === 62) {
        gt = k;
        break;
      }
    }
    if (gt < 0) throw malformed(what, `unterminated tag <${name}>`);
    const selfClosing = xml.charCodeAt(gt - 1) === 47;
    if (stack.length === 0) {
      if (result.prefixes.size > 0 || result.rootDeclarations) throw malformed(what, "more than one root element");
      readRoot(xml.slice(j, selfClosing ? gt - 1 : gt), result);
      const w = [...result.prefixes].find(([, uri]) => uri === NS.w)?.[0];
      const wp = [...result.prefixes].find(([, uri]) => uri === NS.wp)?.[0];
      const q = (prefix: string | undefined, local: string) => (prefix === undefined ? `\u0000${local}` : prefix ? `${prefix}:${local}` : local);
      names = { sdt: q(w, "sdt"), sectPr: q(w, "sectPr"), p: q(w, "p"), t: q(w, "t"), docPr: q(wp, "docPr") };
    }
    if (name === names.docPr) {
      const id = /\sid\s*=\s*["'](\d+)["']/.exec(xml.slice(j, gt));
      if (id) result.maxDrawingId = Math.max(result.maxDrawingId, Number(id[1]));
    }
    if (name === names.sdt && controlDepth < 0) {
      controlStart = lt;
      controlParent = localName(stack.at(-1) ?? "");
      controlDepth = stack.length;
      if (selfClosing) {
        result.controls.push({ start: lt, end: gt + 1, parent: controlParent });
        controlDepth = -1;
      }
    }
    if (!selfClosing) {
      stack.push(name);
      if (name === names.t) inText = true;
      else if (name === names.p) paragraphs.push([]);
      else if (name === names.sectPr) sectionStart = lt;
    } else if (name === names.sectPr) {
      result.sections.push({ start: lt, end: gt + 1 });
    }
    i = gt + 1;
  }
  if (stack.length > 0) throw malformed(what, `<${stack.at(-1)}> is never closed`);
  return result;
}

function isNameEnd(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 47 || c === 62;
}

function localName(qualified: string): string {
  const colon = qualified.indexOf(":");
  return colon < 0 ? qualified : qualified.slice(colon + 1);
}

function readRoot(attributes: string, result: PartScan): void {
  const declarations: string[] = [];
  for (const match of attributes.matchAll(/\s(xmlns(?::([\w.-]+))?)\s*=\s*(["'])(.*?)\3/g)) {
    declarations.push(` ${match[1]}="${match[4]}"`);
    result.prefixes.set(match[2] ?? "", decodeEntities(match[4] ?? ""));
  }
  result.rootDeclarations = declarations.join("") || " ";
}
