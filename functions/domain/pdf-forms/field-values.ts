// The values a fill request gives, checked against the form before anything is written: every
// problem of the request is reported at once, each naming the field (details[].field is fields.N).
import type { FormField } from "#domain/pdf/acroform.ts";
import { type ErrorDetail, SignetError } from "#domain/shared/errors.ts";

/** FieldValue is one item of a PDF fill's `fields`: a field by qualified name and its value. */
export interface FieldValue {
  name: string;
  /** text, combo: a string; checkbox: true/false or an on-state; radio: an on-state; list: a string or, multi-select, several. */
  value: string | boolean | string[];
}

/** PlannedValue is a checked value for one field: what /V becomes. */
export interface PlannedValue {
  field: FormField;
  /** Text for text and choice fields; the state name for buttons ("Off" for none); several for a multi-select list. */
  value: string | string[];
}

type Check = { ok: PlannedValue } | { code: "FIELD_TYPE_MISMATCH" | "INVALID_FIELD_VALUE" | "FIELD_READ_ONLY"; issue: string };

const codePoints = (text: string) => Array.from(text).length;
const listOf = (values: readonly string[]) => values.map((value) => JSON.stringify(value)).join(", ");

function checkText(field: FormField, value: FieldValue["value"]): Check {
  if (typeof value !== "string") return { code: "FIELD_TYPE_MISMATCH", issue: "a text field takes a string" };
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(value))
    return { code: "INVALID_FIELD_VALUE", issue: "contains a control character other than tab and newline" };
  if (field.maxLength !== null && codePoints(value) > field.maxLength)
    return { code: "INVALID_FIELD_VALUE", issue: `is ${codePoints(value)} characters; the field takes at most ${field.maxLength}` };
  if (!field.flags.multiline && /[\r\n]/.test(value)) return { code: "INVALID_FIELD_VALUE", issue: "has a line break; the field is single-line" };
  return { ok: { field, value } };
}

function checkButton(field: FormField, value: FieldValue["value"]): Check {
  const states = field.options.map((option) => option.value);
  if (field.type === "checkbox" && typeof value === "boolean") return { ok: { field, value: value ? (states[0] ?? "Yes") : "Off" } };
  if (typeof value !== "string")
    return { code: "FIELD_TYPE_MISMATCH", issue: `a ${field.type} takes ${field.type === "checkbox" ? "true, false or " : ""}one of its states` };
  if (value === "Off" || states.includes(value)) return { ok: { field, value } };
  return { code: "INVALID_FIELD_VALUE", issue: `${JSON.stringify(value)} is not among its states: ${listOf(["Off", ...states])}` };
}

function checkChoice(field: FormField, value: FieldValue["value"]): Check {
  const values = field.options.map((option) => option.value);
  const chosen = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
  if (!chosen) return { code: "FIELD_TYPE_MISMATCH", issue: `a ${field.type} takes a string${field.flags.multiSelect ? " or an array of strings" : ""}` };
  if (chosen.length > 1 && !field.flags.multiSelect) return { code: "FIELD_TYPE_MISMATCH", issue: "the list takes one value (it is not multi-select)" };
  if (field.type === "combo" && field.flags.editable) return checkText({ ...field, flags: { ...field.flags, multiline: false } }, chosen[0] ?? "");
  const unknown = chosen.filter((item) => !values.includes(item));
  if (unknown.length > 0) return { code: "INVALID_FIELD_VALUE", issue: `${listOf(unknown)} not among its options: ${listOf(values)}` };
  return { ok: { field, value: Array.isArray(value) ? chosen : chosen[0]! } };
}

function checkOne(field: FormField, value: FieldValue["value"]): Check {
  if (field.flags.readOnly) return { code: "FIELD_READ_ONLY", issue: "the field is read-only" };
  switch (field.type) {
    case "text":
      return checkText(field, value);
    case "checkbox":
    case "radio":
      return checkButton(field, value);
    case "combo":
    case "list":
      return checkChoice(field, value);
    default:
      return { code: "FIELD_TYPE_MISMATCH", issue: `a ${field.type} field takes no value (sign a signature field with POST /v1/sign)` };
  }
}

// When one request has several kinds of problem, the first kind in this order is the code.
const ORDER = ["FIELD_NOT_FOUND", "FIELD_READ_ONLY", "FIELD_TYPE_MISMATCH", "INVALID_FIELD_VALUE"] as const;
const MESSAGES: Record<(typeof ORDER)[number], string> = {
  FIELD_NOT_FOUND: "These fields are not in the form; list its fields with POST /v1/annotate/fields and use their names",
  FIELD_READ_ONLY: "These fields are read-only; leave them out",
  FIELD_TYPE_MISMATCH: "These values are of the wrong type for their fields",
  INVALID_FIELD_VALUE: "These values do not fit their fields",
};

/** planValues checks every value against the form; all problems at once, as one SignetError naming each. */
export function planValues(fields: readonly FormField[], values: readonly FieldValue[]): PlannedValue[] {
  const byName = new Map(fields.map((field) => [field.name, field]));
  const problems = new Map<(typeof ORDER)[number], ErrorDetail[]>();
  const plan: PlannedValue[] = [];
  const add = (code: (typeof ORDER)[number], detail: ErrorDetail) => problems.set(code, [...(problems.get(code) ?? []), detail]);
  for (const [index, item] of values.entries()) {
    const field = byName.get(item.name);
    if (!field) {
      add("FIELD_NOT_FOUND", { field: `fields.${index}.name`, issue: `no field named ${JSON.stringify(item.name)}` });
      continue;
    }
    const check = checkOne(field, item.value);
    if ("ok" in check) plan.push(check.ok);
    else add(check.code, { field: `fields.${index}.value`, issue: `${item.name}: ${check.issue}` });
  }
  const code = ORDER.find((candidate) => problems.has(candidate));
  if (code) {
    const details = problems.get(code)!;
    throw new SignetError(code, `${MESSAGES[code]}: ${details.map((detail) => detail.issue).join("; ")}.`, { details });
  }
  return plan;
}

/**
 * pdfFieldValues takes the items of a request's `fields` meant for a PDF form (each has `name`);
 * an item made for a DOCX template (id or group) is a VALIDATION_ERROR naming it.
 */
export function pdfFieldValues(items: ReadonlyArray<object>): FieldValue[] {
  const wrong = items.flatMap((item, index) => ("name" in item ? [] : [index]));
  if (wrong.length > 0) {
    throw new SignetError(
      "VALIDATION_ERROR",
      "The document is a PDF form: give each field as { name, value } with the qualified names POST /v1/annotate/fields lists.",
      {
        details: wrong.map((index) => ({ field: `fields.${index}`, issue: "a PDF form field takes name and value, not id, group or type" })),
      },
    );
  }
  return items as FieldValue[];
}

/** templateFields takes the items of `fields` meant for a DOCX template; a PDF form item (`name`) is a VALIDATION_ERROR naming it. */
export function templateFields<T extends object>(items: ReadonlyArray<T | FieldValue>): T[] {
  const wrong = items.flatMap((item, index) => ("name" in item ? [index] : []));
  if (wrong.length > 0) {
    throw new SignetError("VALIDATION_ERROR", "The document is a DOCX template: give each field as { id or group, type, value }.", {
      details: wrong.map((index) => ({ field: `fields.${index}`, issue: "name and value fill a PDF form; a template takes id or group, type and value" })),
    });
  }
  return items as T[];
}
