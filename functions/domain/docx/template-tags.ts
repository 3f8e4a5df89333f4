import { SignetError } from "#domain/shared/errors.ts";

/**
 * docxtemplater compiles a template's {{tags}} in time that grows with the square of how deep its
 * sections nest (a 1.8 KB DOCX of 1,000 nested {{#a}} sections took 3 s, 20,000 never finished, all
 * on the event loop), and with the number of tags. Both are counted while the part is scanned, from
 * the same text docxtemplater reads (w:t content in document order), and bounded before it runs.
 */

/** TemplateLimits bound the {{tags}} docxtemplater compiles in one template. */
export interface TemplateLimits {
  /** Sections ({{#a}}, {{^a}}, {{-w:p a}}) open inside one another at any point. */
  maxTemplateDepth: number;
  /** {{tags}} of all content parts together, closing tags included. */
  maxTemplateTags: number;
}

/** DEFAULT_TEMPLATE_LIMITS apply where a caller names no template limit (the service takes them from its configuration). */
const DEFAULT_TEMPLATE_LIMITS: TemplateLimits = { maxTemplateDepth: 32, maxTemplateTags: 2_000 };

/** TagCount is what TagTally found in one part. */
export interface TagCount {
  tags: number;
  maxDepth: number;
}

// The first character of a tag that opens a section in docxtemplater's loop module, and the one that closes it.
const OPENERS = new Set(["#", "^", "-"]);
const CLOSER = "/";

/**
 * TagTally reads a part's text piece by piece (a tag may be cut across runs) and counts its {{tags}}
 * and the deepest nesting of sections, as docxtemplater's lexer sees them: a tag runs from "{{" to
 * the next "}}", its first non-blank character tells an opening or closing section.
 */
export class TagTally {
  readonly count: TagCount = { tags: 0, maxDepth: 0 };
  private depth = 0;
  private inTag = false;
  /** The previous piece ended in a single "{" (outside a tag) or "}" (inside one). */
  private half = false;
  private first = "";

  /** feed reads the next piece of text. */
  feed(text: string): void {
    let at = 0;
    while (at < text.length) {
      if (this.half && text[at] === (this.inTag ? "}" : "{")) {
        this.half = false;
        at = this.inTag ? this.close(at + 1) : this.open(at + 1);
        continue;
      }
      this.half = false;
      if (this.inTag) at = this.readInside(text, at);
      else {
        const start = text.indexOf("{{", at);
        if (start < 0) {
          this.half = text.endsWith("{");
          return;
        }
        at = this.open(start + 2);
      }
    }
  }

  private readInside(text: string, at: number): number {
    let from = at;
    if (this.first === "") {
      while (from < text.length && /\s/.test(text[from]!)) from++;
      if (from < text.length) this.first = text[from]!;
    }
    const end = text.indexOf("}}", from);
    if (end < 0) {
      this.half = text.endsWith("}");
      return text.length;
    }
    return this.close(end + 2);
  }

  private open(at: number): number {
    this.inTag = true;
    this.first = "";
    return at;
  }

  private close(at: number): number {
    this.inTag = false;
    this.count.tags++;
    if (OPENERS.has(this.first)) this.count.maxDepth = Math.max(this.count.maxDepth, ++this.depth);
    else if (this.first === CLOSER) this.depth = Math.max(0, this.depth - 1);
    return at;
  }
}

/**
 * checkTemplateTags refuses a template whose sections nest deeper than maxTemplateDepth or whose
 * parts hold more than maxTemplateTags {{tags}} together (PAYLOAD_TOO_LARGE), before docxtemplater
 * compiles any of them.
 */
export function checkTemplateTags(parts: ReadonlyArray<{ scan: { tags: TagCount } }>, limits: Partial<TemplateLimits>): void {
  const { maxTemplateDepth, maxTemplateTags } = { ...DEFAULT_TEMPLATE_LIMITS, ...limits };
  const tags = parts.reduce((sum, part) => sum + part.scan.tags.tags, 0);
  const depth = Math.max(0, ...parts.map((part) => part.scan.tags.maxDepth));
  if (depth > maxTemplateDepth) {
    throw new SignetError(
      "PAYLOAD_TOO_LARGE",
      `The template nests {{#sections}} ${depth} deep; the limit is ${maxTemplateDepth} (SIGNET_MAX_TEMPLATE_DEPTH). Nest fewer sections inside one another.`,
      { details: [{ field: "document", issue: `sections nested ${depth} deep, at most ${maxTemplateDepth}` }] },
    );
  }
  if (tags > maxTemplateTags) {
    throw new SignetError(
      "PAYLOAD_TOO_LARGE",
      `The template has ${tags} {{tags}}; the limit is ${maxTemplateTags} (SIGNET_MAX_TEMPLATE_TAGS). Use fewer tags or split the template.`,
      { details: [{ field: "document", issue: `${tags} {{tags}}, at most ${maxTemplateTags}` }] },
    );
  }
}
