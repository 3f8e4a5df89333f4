import Docxtemplater from "docxtemplater";
import PizZip from "pizzip";
import { SignetError, type ErrorDetail } from "#domain/shared/errors.ts";
import type { DocxPackage } from "#domain/docx/package.ts";
import { TEMPLATE_CONTENT_TYPES, templateSyntaxError } from "#domain/docx/placeholders.ts";

/** TemplateData is the `data` object of an annotate request: the values its {{tags}} read. */
export type TemplateData = Readonly<Record<string, unknown>>;

/** DataLimits bound what filling a template from data may produce. */
export interface DataLimits {
  /** Loop iterations in all parts together; an inner loop counts each of its items under each outer item. */
  maxDataIterations: number;
  /** Characters the filled XML of all parts together may reach. */
  maxDataOutputChars: number;
}

/** DataTag is one tag of a template as POST /v1/annotate/fields reports it, with what it repeats over. */
export interface DataTag {
  name: string;
  /** value: {{name}}; section: {{#name}}...{{/name}} (a loop over an array, or a condition); inverted: {{^name}}...{{/name}}. */
  kind: "value" | "section" | "inverted";
  children?: DataTag[];
}

/** DataPart is a content part (body, header, footer, notes) as its text stands. */
export interface DataPart {
  name: string;
  xml: string;
}

// The pieces of docxtemplater's compiled template this module reads (js/docxtemplater.d.ts calls them Part).
interface CompiledPart {
  type: string;
  value?: string;
  module?: string;
  inverted?: boolean;
  subparsed?: CompiledPart[];
}

/** DEFAULT_DATA_LIMITS apply where a caller names no data limit (the service takes them from its configuration). */
export const DEFAULT_DATA_LIMITS: DataLimits = { maxDataIterations: 10_000, maxDataOutputChars: 64 * 1024 * 1024 };

const MAX_REPORTED = 50;

/** lookup resolves a dotted path ("customer.address.city", "." for the item itself) in one scope, own properties only. */
function lookup(path: readonly string[], scope: unknown): unknown {
  let value = scope;
  for (const key of path) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function pathOf(tag: string): string[] {
  const name = tag.trim();
  return name === "." ? [] : name.split(".");
}

/** resolve looks a tag up from the innermost scope outwards, as docxtemplater's scope manager does. */
function resolve(tag: string, scopes: readonly unknown[]): unknown {
  const path = pathOf(tag);
  for (let i = scopes.length - 1; i >= 0; i--) {
    const value = lookup(path, scopes[i]);
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

function falsy(value: unknown): boolean {
  return value === undefined || value === null || !value || (Array.isArray(value) && value.length === 0);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Walk goes through a compiled part with the data exactly as docxtemplater will render it, before it
 * does: it counts loop iterations and output characters against the limits (so a loop over 100,000
 * items or a loop nested in itself is refused before any string is built), and gathers every tag
 * that has no value and every value that cannot be written as text, each with its full path.
 */
class Walk {
  iterations = 0;
  chars = 0;
  readonly missing: ErrorDetail[] = [];
  readonly unfit: ErrorDetail[] = [];
  private missingCount = 0;
  private readonly seen = new Set<string>();

  constructor(private readonly limits: DataLimits) {}

  run(parts: readonly CompiledPart[], scopes: unknown[], where: string[]): void {
    for (const part of parts) {
      if (part.type !== "placeholder") {
        this.spend(part.value?.length ?? 0);
        continue;
      }
      const tag = part.value ?? "";
      const value = resolve(tag, scopes);
      const at = [...where, tag.trim()].join(".");
      if (part.module === "loop") {
        this.loop(part, value, scopes, where, at);
      } else if (value === undefined || value === null) {
        this.miss(at);
      } else if (typeof value === "object") {
        this.report(
          this.unfit,
          at,
          `is ${Array.isArray(value) ? "an array" : "an object"}; write it with a loop ({{#${tag.trim()}}}...{{/${tag.trim()}}}) or name one of its members`,
        );
      } else {
        this.spend(String(value).length * 6); // at worst every character becomes an XML entity
      }
    }
  }

  private loop(part: CompiledPart, value: unknown, scopes: unknown[], where: string[], at: string): void {
    const inner = part.subparsed ?? [];
    if (value === undefined || value === null) {
      // A section whose name has no value is missing data, like a value tag: send false or [] to leave it out.
      this.miss(at);
      return;
    }
    if (part.inverted) {
      if (falsy(value)) this.run(inner, scopes, where);
      return;
    }
    if (falsy(value)) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        this.iterate(at);
        scopes.push(item);
        this.run(inner, scopes, [...where, `${part.value!.trim()}[${i}]`]);
        scopes.pop();
      });
      return;
    }
    this.iterate(at);
    if (isPlainObject(value)) {
      scopes.push(value);
      this.run(inner, scopes, [...where, part.value!.trim()]);
      scopes.pop();
    } else {
      this.run(inner, scopes, where);
    }
  }

  private iterate(at: string): void {
    if (++this.iterations > this.limits.maxDataIterations) {
      throw new SignetError(
        "PAYLOAD_TOO_LARGE",
        `The template's loops would repeat more than ${this.limits.maxDataIterations} times with this data (an inner loop counts under each outer item); send fewer items or split the document.`,
        { details: [{ field: "data", issue: `loop iterations exceed ${this.limits.maxDataIterations} at ${at}` }] },
      );
    }
  }

  private spend(chars: number): void {
    this.chars += chars;
    if (this.chars > this.limits.maxDataOutputChars) {
      throw new SignetError(
        "PAYLOAD_TOO_LARGE",
        `Filled with this data, the template's XML would exceed ${this.limits.maxDataOutputChars} characters; send fewer items or shorter values.`,
        { details: [{ field: "data", issue: `filled XML exceeds ${this.limits.maxDataOutputChars} characters` }] },
      );
    }
  }

  private miss(at: string): void {
    this.missingCount++;
    this.report(this.missing, at, "has no value in data");
  }

  private report(list: ErrorDetail[], at: string, issue: string): void {
    if (this.seen.has(at) || list.length >= MAX_REPORTED) return;
    this.seen.add(at);
    list.push({ field: `data.${at}`, issue });
  }

  /** missingTotal is how many tag uses had no value (the details list at most MAX_REPORTED). */
  get missingTotal(): number {
    return this.missingCount;
  }
}

/** compile parses one part's {{tags}} with docxtemplater: loops, sections and inverted sections; no expressions. */
function compile(part: DataPart, missing: ErrorDetail[] = []): Docxtemplater {
  const zip = new PizZip();
  zip.file("[Content_Types].xml", TEMPLATE_CONTENT_TYPES);
  zip.file("word/document.xml", part.xml);
  try {
    return new Docxtemplater(zip, {
      delimiters: { start: "{{", end: "}}" },
      syntax: { changeDelimiterPrefix: null },
      paragraphLoop: true,
      linebreaks: true,
      errorLogging: false,
      // Paths only: a tag is a member name or a dotted path, never an expression to evaluate.
      parser: (tag) => {
        const path = pathOf(tag);
        return { get: (scope: unknown) => lookup(path, scope) };
      },
      // The walk has refused missing data already; this only guards against a disagreement with it.
      nullGetter: (part) => {
        missing.push({ field: `data.${String(part.value).trim()}`, issue: "has no value in data" });
        return "";
      },
    });
  } catch (error) {
    throw templateSyntaxError(error);
  }
}

function postparsed(doc: Docxtemplater): CompiledPart[] {
  const compiled = (doc as unknown as { compiled: Record<string, { postparsed: CompiledPart[] }> }).compiled;
  return compiled["word/document.xml"]!.postparsed;
}

/** refuseRawXml refuses {{@name}}: raw XML from data would let a value rewrite the document's structure. */
function refuseRawXml(parts: readonly CompiledPart[], partName: string): void {
  for (const part of parts) {
    if (part.type !== "placeholder") continue;
    if (part.module === "rawxml") {
      throw new SignetError(
        "INVALID_DOCUMENT",
        `The template has a raw XML tag {{@${part.value}}} in ${partName}; Signet writes data as text only: use {{${part.value}}}.`,
        {
          details: [{ field: "document", issue: `raw XML tag {{@${part.value}}} in ${partName}` }],
        },
      );
    }
    if (part.subparsed) refuseRawXml(part.subparsed, partName);
  }
}

/**
 * fillData renders every content part that holds "{{" with the data: values, dotted paths, loops
 * over arrays (paragraphs, table rows and list items repeat), sections and inverted sections. It
 * first walks the template with the data to check the limits and gather every tag without a value
 * (DATA_MISSING, listing each path) or with a value that is not text; nothing is written unless
 * every part can be filled. Returns what the walk counted, which the request's repeat fields share.
 */
export function fillData(
  pkg: DocxPackage,
  parts: readonly DataPart[],
  data: TemplateData,
  limits: Partial<DataLimits> = {},
): { iterations: number; chars: number } {
  const walk = new Walk({ ...DEFAULT_DATA_LIMITS, ...limits });
  const docs: Array<{ part: DataPart; doc: Docxtemplater }> = [];
  for (const part of parts) {
    if (!part.xml.includes("{{")) continue;
    const doc = compile(part);
    const compiled = postparsed(doc);
    refuseRawXml(compiled, part.name);
    walk.run(compiled, [data], []);
    docs.push({ part, doc });
  }
  if (walk.unfit.length > 0) {
    throw new SignetError("VALIDATION_ERROR", "Some data values cannot be written as text; see details.", { details: walk.unfit });
  }
  if (walk.missing.length > 0) {
    throw new SignetError(
      "DATA_MISSING",
      `${walk.missingTotal} tag use(s) of the template have no value in data; add the paths in details (send false or [] to leave a section out).`,
      { details: walk.missing, next: "list-fields" },
    );
  }
  for (const { part, doc } of docs) {
    const missing: ErrorDetail[] = [];
    try {
      doc.render(data);
    } catch (error) {
      throw templateSyntaxError(error);
    }
    if (missing.length > 0) throw new SignetError("DATA_MISSING", "Some tags of the template have no value in data; see details.", { details: missing });
    pkg.set(part.name, doc.getZip().file("word/document.xml")!.asText());
  }
  return { iterations: walk.iterations, chars: walk.chars };
}

function describeParts(parts: readonly CompiledPart[], into: Map<string, DataTag>): void {
  for (const part of parts) {
    if (part.type !== "placeholder") continue;
    const name = (part.value ?? "").trim();
    const kind: DataTag["kind"] = part.module === "loop" ? (part.inverted ? "inverted" : "section") : "value";
    const key = `${kind}:${name}`;
    let tag = into.get(key);
    if (!tag) {
      tag = { name, kind };
      into.set(key, tag);
    }
    if (part.subparsed) {
      const children = new Map((tag.children ?? []).map((child) => [`${child.kind}:${child.name}`, child]));
      describeParts(part.subparsed, children);
      tag.children = [...children.values()];
    }
  }
}

/** describeData lists the {{tags}} of the parts with their loop and section structure, each tag once per level. */
export function describeData(parts: readonly DataPart[]): DataTag[] {
  const tags = new Map<string, DataTag>();
  for (const part of parts) {
    if (!part.xml.includes("{{")) continue;
    describeParts(postparsed(compile(part)), tags);
  }
  return [...tags.values()];
}
