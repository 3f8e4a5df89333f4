import { SignetError, isSignetError, type ErrorDetail } from "#domain/shared/errors.ts";
import type { Fetcher } from "#domain/shared/fetcher.ts";
import { fillCheckbox, fillRepeat, fillTable, fillText, reserveRepeat, reserveTable, type RepeatItem } from "#domain/docx/fill.ts";
import { ImageWriter } from "#domain/docx/image.ts";
import { loadImage, storedBytes, type Dimensions, type ImageLoadDeps, type LoadedImage } from "#domain/pictures/load.ts";
import type { PictureConverters } from "#domain/pictures/picture-formats.ts";
import { DocxPackage } from "#domain/docx/package.ts";
import type { ZipContainer } from "#domain/shared/zip-container.ts";
import { fillPlaceholders } from "#domain/docx/placeholders.ts";
import { Template, type Control, type ControlKind } from "#domain/docx/template.ts";
import { formatBytes } from "#domain/shared/sizes.ts";
import { checkXmlBudget, type XmlBudget } from "#domain/docx/budget.ts";
import { DEFAULT_DATA_LIMITS, describeData, fillData, type DataLimits, type DataTag, type TemplateData } from "#domain/docx/data.ts";
import { checkTemplateTags, type TemplateLimits } from "#domain/docx/template-tags.ts";
import { FillBudget } from "#domain/docx/fill-budget.ts";
import { TimeSlice } from "#domain/shared/time-slice.ts";

/** FieldType is what a field writes. */
export type FieldType = "text" | "image" | "signature" | "table" | "checkbox" | "repeat";

/** Field is one entry of an annotate request (docs/api.md, "Annotate"). */
export interface Field {
  id?: string | undefined;
  group?: string | undefined;
  type: FieldType;
  // table: rows (string[][]), repeat: items (RepeatItem[]); the request schema checks which.
  value: string | boolean | Array<string[] | RepeatItem>;
  options?:
    | {
        keepTextNodeStyles?: boolean | undefined;
        dimensions?: Dimensions | undefined;
        copyRowStyle?: boolean | undefined;
      }
    | undefined;
}

/** AnnotateLimits bound one annotate call. */
export interface AnnotateLimits extends XmlBudget, Partial<DataLimits>, Partial<TemplateLimits> {
  maxDocxEntries: number;
  maxDocxUncompressedBytes: number;
  maxImageBytes: number;
  /** All distinct images of one call together, in bytes. */
  maxTotalImageBytes: number;
  /** Width x height any one image may declare (IMAGE_TOO_LARGE above); DEFAULT_MAX_IMAGE_PIXELS when unset. */
  maxImagePixels?: number | undefined;
}

/** DEFAULT_MAX_IMAGE_PIXELS is SIGNET_MAX_IMAGE_PIXELS's default. */
const DEFAULT_MAX_IMAGE_PIXELS = 100_000_000;

/** AnnotateDeps are the ports and limits the filler uses. */
export interface AnnotateDeps {
  fetcher: Fetcher;
  limits: AnnotateLimits;
  /** SVG rendering and WebP decoding; without them an SVG or WebP value cannot be filled. */
  pictures?: PictureConverters | undefined;
}

/** FieldDescription is one control as POST /v1/annotate/fields reports it. */
export interface FieldDescription {
  ids: string[];
  group: string | null;
  alias: string | null;
  kind: ControlKind;
  location: { part: string; index: number };
}

/** DOCX_CONTENT_TYPE is the media type of a Word document. */
export const DOCX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** checkFieldCount refuses more fields than the configured limit (PAYLOAD_TOO_LARGE). */
export function checkFieldCount(count: number, maxFields: number): void {
  if (count > maxFields) {
    throw new SignetError("PAYLOAD_TOO_LARGE", `The request has ${count} fields; the limit is ${maxFields}. Split the fill into several requests.`, {
      details: [{ field: "fields", issue: `${count} items, at most ${maxFields}` }],
    });
  }
}

const accepts: Record<FieldType, readonly ControlKind[]> = {
  text: ["text", "block"],
  image: ["text", "block", "picture"],
  signature: ["text", "block", "picture"],
  table: ["table"],
  checkbox: ["checkbox"],
  repeat: ["repeat"],
};

const kindNames: Record<ControlKind, string> = {
  text: "an inline text control",
  block: "a block (paragraph) control",
  table: "a table control",
  checkbox: "a checkbox control",
  picture: "a picture control",
  repeat: "a repeating section",
};

/** PackageLimits are the limits that apply to reading a template, before any field is looked at. */
export type PackageLimits = Pick<
  AnnotateLimits,
  "maxDocxEntries" | "maxDocxUncompressedBytes" | "maxDocxControls" | "maxDocxXmlNodes" | "maxDocxControlNodes"
> &
  Partial<TemplateLimits>;

/**
 * openPackage reads a template within the zip limits, then counts its XML elements and content
 * controls against the XML budget before anything parses them (PAYLOAD_TOO_LARGE past a limit).
 */
async function openPackage(bytes: Uint8Array | ZipContainer, limits: PackageLimits): Promise<DocxPackage> {
  const pkg = await DocxPackage.read(bytes, { maxEntries: limits.maxDocxEntries, maxUncompressedBytes: limits.maxDocxUncompressedBytes });
  checkXmlBudget(pkg, limits);
  return pkg;
}

/** describeFields lists every content control of a template and its {{placeholders}}. */
export async function describeFields(
  bytes: Uint8Array,
  limits: PackageLimits,
): Promise<{ fields: FieldDescription[]; placeholders: string[]; tags: DataTag[] }> {
  const template = await Template.open(await openPackage(bytes, limits));
  checkTemplateTags(template.parts, limits);
  return {
    fields: template.controls.map((control) => ({
      ids: [...new Set([...control.fieldIds, ...(control.sdtId ? [control.sdtId] : []), ...(control.tag ? [control.tag] : [])])],
      group: control.group,
      alias: control.alias,
      kind: control.kind,
      location: { part: control.part.name, index: control.index },
    })),
    placeholders: template.placeholders(),
    tags: describeData(template.parts),
  };
}

/**
 * ControlIndex finds a field's controls. An id is tried in order against SuperDoc field ids, then
 * w:id values, then plain Word tags; the first rule that matches anything wins and every control it
 * matches is filled. A group matches `group` of JSON tags.
 */
class ControlIndex {
  private readonly byFieldId = new Map<string, Control[]>();
  private readonly bySdtId = new Map<string, Control[]>();
  private readonly byTag = new Map<string, Control[]>();
  private readonly byGroup = new Map<string, Control[]>();

  constructor(controls: readonly Control[]) {
    const add = (map: Map<string, Control[]>, key: string | null, control: Control) => {
      if (key === null) return;
      const list = map.get(key);
      if (list) list.push(control);
      else map.set(key, [control]);
    };
    for (const control of controls) {
      for (const id of control.fieldIds) add(this.byFieldId, id, control);
      add(this.bySdtId, control.sdtId, control);
      add(this.byTag, control.tag, control);
      add(this.byGroup, control.group, control);
    }
  }

  /** match returns the controls a field targets (empty when none). */
  match(field: Pick<Field, "id" | "group">): Control[] {
    if (field.group !== undefined) return this.byGroup.get(field.group) ?? [];
    const id = field.id!;
    return this.byFieldId.get(id) ?? this.bySdtId.get(id) ?? this.byTag.get(id) ?? [];
  }
}

const fieldName = (index: number) => `fields.${index}`;
const label = (field: Field) => (field.group !== undefined ? `group "${field.group}"` : `id "${field.id}"`);

/** checkFields matches every field and raises FIELD_NOT_FOUND / FIELD_TYPE_MISMATCH listing every offender. */
function checkFields(template: Template, fields: readonly Field[], placeholders: ReadonlySet<string>): Control[][] {
  const index = new ControlIndex(template.controls);
  const matches = fields.map((field) => index.match(field));
  const fillsPlaceholder = (field: Field) => field.id !== undefined && placeholders.has(field.id);
  const missing: ErrorDetail[] = [];
  fields.forEach((field, i) => {
    if (matches[i]!.length === 0 && !fillsPlaceholder(field))
      missing.push({ field: fieldName(i), issue: `${label(field)} matches no content control or {{placeholder}}` });
  });
  if (missing.length > 0) {
    throw new SignetError(
      "FIELD_NOT_FOUND",
      `${missing.length} field(s) match nothing in the template; check the ids and groups in details against the template's fields.`,
      { details: missing, next: "list-fields" },
    );
  }
  const mismatched: ErrorDetail[] = [];
  fields.forEach((field, i) => {
    for (const control of matches[i]!) {
      if (!accepts[field.type].includes(control.kind)) {
        mismatched.push({
          field: fieldName(i),
          issue: `a ${field.type} value cannot go into ${kindNames[control.kind]} (${control.part.name}, control ${control.index})`,
        });
        break;
      }
    }
    if (matches[i]!.length === 0 && field.type !== "text") {
      mismatched.push({ field: fieldName(i), issue: `${label(field)} only matches a {{placeholder}}, which takes text values` });
    }
  });
  if (mismatched.length > 0) {
    throw new SignetError("FIELD_TYPE_MISMATCH", "Some values do not fit the controls they target; see details.", { details: mismatched });
  }
  refuseRepeatedSections(fields, matches);
  return matches;
}

/** refuseRepeatedSections refuses two repeat fields that fill the same repeating section: its items come from one field. */
function refuseRepeatedSections(fields: readonly Field[], matches: readonly Control[][]): void {
  const filledBy = new Map<Control, number>();
  const twice: ErrorDetail[] = [];
  fields.forEach((field, i) => {
    if (field.type !== "repeat") return;
    for (const control of matches[i]!) {
      const first = filledBy.get(control);
      if (first === undefined) filledBy.set(control, i);
      else
        twice.push({
          field: fieldName(i),
          issue: `fills the repeating section ${fieldName(first)} already fills (${control.part.name}, control ${control.index})`,
        });
    }
  });
  if (twice.length > 0) {
    throw new SignetError("VALIDATION_ERROR", "A repeating section is filled by more than one repeat field; send all its items in one field.", {
      details: twice.slice(0, 50),
    });
  }
}

/**
 * fillTemplate fills a DOCX template's content controls and {{placeholders}} with the fields and
 * returns the new DOCX. With `data`, the template's {{tags}} are rendered from it instead (values,
 * dotted paths, loops and sections; see fillData), text fields that name a placeholder joining the
 * data's top level. Nothing is written unless every field matches and fits and every tag has a value.
 */
export async function fillTemplate(bytes: Uint8Array | ZipContainer, fields: readonly Field[], deps: AnnotateDeps, data?: TemplateData): Promise<Buffer> {
  const pkg = await openPackage(bytes, deps.limits);
  let template = await Template.open(pkg);
  const placeholders = new Set(template.placeholders());
  checkFields(template, fields, placeholders);

  const images = await loadImages(fields, deps);

  // Null prototype: a field id "__proto__" is a plain key like any other.
  const placeholderValues: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const field of fields) {
    if (field.type === "text" && field.id !== undefined && placeholders.has(field.id)) placeholderValues[field.id] = String(field.value);
  }
  const dataLimits = { ...DEFAULT_DATA_LIMITS, ...deps.limits };
  let budget = new FillBudget(dataLimits);
  if (data !== undefined) {
    checkTemplateTags(template.parts, deps.limits);
    // One pass: a value that itself contains "{{...}}" is written as text, never read as a tag.
    budget = new FillBudget(dataLimits, fillData(pkg, template.parts, { ...data, ...placeholderValues }, deps.limits));
    template = await Template.open(pkg);
  } else if (Object.keys(placeholderValues).length > 0) {
    // Placeholders go first, so a value that itself contains "{{...}}" is never treated as a tag.
    fillPlaceholders(pkg, template.parts, placeholderValues);
    template = await Template.open(pkg);
  }

  const index = new ControlIndex(template.controls);
  const matches = fields.map((field) => index.match(field));
  const imageWriter = new ImageWriter(pkg, template);
  // Every repeat item and table row is counted before the first is made: the budget is the request's.
  fields.forEach((field, i) => {
    for (const control of matches[i]!) {
      if (field.type === "repeat") reserveRepeat(control, field.value as RepeatItem[], fieldName(i), budget);
      if (field.type === "table")
        reserveTable(control, field.value as string[][], { copyRowStyle: field.options?.copyRowStyle === true }, fieldName(i), budget);
    }
  });
  const work = { imageWriter, images, slice: new TimeSlice() };
  for (const [i, field] of fields.entries()) {
    for (const control of matches[i]!) {
      await fillControl(control, field, i, work);
      template.touch(control);
    }
  }
  template.save();
  imageWriter.save();
  return await pkg.toBuffer();
}

/** IMAGE_FETCH_CONCURRENCY is how many image URLs one call fetches at a time. */
const IMAGE_FETCH_CONCURRENCY = 4;

/**
 * loadImages decodes or fetches every distinct image value once. Data URIs (already in the request)
 * are decoded first; URLs are then fetched IMAGE_FETCH_CONCURRENCY at a time. The bytes of all
 * images stay within maxTotalImageBytes: each fetch reserves what it may receive (the per-image cap,
 * or what is left of the budget) before it starts and is capped at that, so what is held, received
 * or in flight never exceeds the budget. Beyond it the call is PAYLOAD_TOO_LARGE.
 */
async function loadImages(fields: readonly Field[], deps: AnnotateDeps): Promise<Map<string, LoadedImage>> {
  const { maxImageBytes, maxTotalImageBytes: budget, maxImagePixels } = { maxImagePixels: DEFAULT_MAX_IMAGE_PIXELS, ...deps.limits };
  const load = (value: string, i: number, cap: number) =>
    loadImage(value, fieldName(i), { fetcher: deps.fetcher, maxImageBytes: cap, maxImagePixels, pictures: deps.pictures } satisfies ImageLoadDeps);
  const first = new Map<string, number>();
  fields.forEach((field, i) => {
    if ((field.type === "image" || field.type === "signature") && !first.has(field.value as string)) first.set(field.value as string, i);
  });
  const overBudget = (i: number) =>
    new SignetError(
      "PAYLOAD_TOO_LARGE",
      `The images of this request add up to more than the ${formatBytes(budget)} total image limit; send fewer or smaller images.`,
      {
        details: [{ field: `${fieldName(i)}.value`, issue: `exceeds the total image budget of ${budget} bytes` }],
      },
    );
  const images = new Map<string, LoadedImage>();
  let used = 0;
  const urls: Array<[string, number]> = [];
  for (const [value, i] of first) {
    if (!value.startsWith("data:")) {
      urls.push([value, i]);
      continue;
    }
    const image = await load(value, i, maxImageBytes);
    used += storedBytes(image);
    if (used > budget) throw overBudget(i);
    images.set(value, image);
  }

  let reserved = 0;
  let failure: { error: unknown } | undefined;
  const running = new Set<Promise<void>>();
  for (const [value, i] of urls) {
    let allowance: number;
    for (;;) {
      if (failure) throw failure.error;
      if (budget - used <= 0) throw overBudget(i);
      allowance = Math.min(maxImageBytes, budget - used);
      if (running.size < IMAGE_FETCH_CONCURRENCY && budget - used - reserved >= allowance) break;
      await Promise.race(running);
    }
    const cap = allowance;
    reserved += cap;
    const task = load(value, i, cap)
      .then(
        (image) => {
          used += storedBytes(image);
          images.set(value, image);
        },
        (error: unknown) => {
          const budgetCut = cap < maxImageBytes && isSignetError(error) && error.code === "PAYLOAD_TOO_LARGE";
          failure ??= { error: budgetCut ? overBudget(i) : error };
        },
      )
      .finally(() => {
        reserved -= cap;
        running.delete(task);
      });
    running.add(task);
  }
  await Promise.all(running);
  if (failure) throw failure.error;
  return images;
}

/** FillWork is what filling the controls of one request shares: the image writer, the loaded images and the turn on the event loop. */
interface FillWork {
  imageWriter: ImageWriter;
  images: ReadonlyMap<string, LoadedImage>;
  slice: TimeSlice;
}

async function fillControl(control: Control, field: Field, index: number, work: FillWork): Promise<void> {
  const options = { keepTextNodeStyles: true, copyRowStyle: false, ...field.options };
  switch (field.type) {
    case "text":
      fillText(control, String(field.value), { keepTextNodeStyles: options.keepTextNodeStyles !== false });
      return;
    case "image":
    case "signature":
      work.imageWriter.draw(control, work.images.get(field.value as string)!, options.dimensions, field.id ?? field.group ?? field.type);
      return;
    case "table":
      await fillTable(control, field.value as string[][], { copyRowStyle: options.copyRowStyle === true }, fieldName(index), work.slice);
      return;
    case "checkbox":
      fillCheckbox(control, field.value === true || field.value === "true");
      return;
    case "repeat":
      await fillRepeat(control, field.value as RepeatItem[], fieldName(index), work.slice);
      return;
  }
}
