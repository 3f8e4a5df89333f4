import type { PdfView } from "#domain/pdf/pdf-file.ts";
import { type FieldType, type FormField, type FormKind, type PdfForm, readForm } from "#domain/pdf/acroform.ts";
import type { PageTreeShape } from "#domain/pdf/page-tree.ts";
import { plainTextValue, TextBudget } from "#domain/pdf-forms/rich-text.ts";

/** ListedField is one terminal field of a PDF form as POST /v1/annotate/fields answers it (docs/api.md, "PDF forms"). */
export interface ListedField {
  /** The fully qualified name (parent names joined with dots): what `fields[].name` of a fill takes. */
  name: string;
  type: Exclude<FieldType, "unknown"> | "unknown";
  /** Text (a text stream's or rich text's plain text), the chosen export value ("Off" for a button that is off), several for a multi-select list, or null. */
  value: string | string[] | null;
  /** Choices of a combo or list (export value and what is shown); a check box's or radio group's on-states. */
  options: Array<{ value: string; label: string }>;
  flags: { readOnly: boolean; required: boolean; multiline: boolean; comb: boolean; multiSelect: boolean; maxLength: number | null };
  /** Where the field shows: 1-based page (null when no page lists the widget) and [left, bottom, right, top] in points. */
  widgets: Array<{ page: number | null; rect: [number, number, number, number] | null }>;
  /** Signature fields only: whether it holds a signature. */
  signed?: boolean;
}

/** FormListing is the PDF answer of POST /v1/annotate/fields. */
export interface FormListing {
  form: FormKind;
  fields: ListedField[];
}

const round = (value: number) => Math.round(value * 100) / 100;

/** listedField maps one terminal field of the model to the API's shape, with `value` as text. */
function listedField(field: FormField, value: ListedField["value"]): ListedField {
  return {
    name: field.name,
    type: field.type,
    value,
    options: field.options,
    flags: {
      readOnly: field.flags.readOnly,
      required: field.flags.required,
      multiline: field.flags.multiline,
      comb: field.flags.comb,
      multiSelect: field.flags.multiSelect,
      maxLength: field.maxLength,
    },
    widgets: field.widgets.map((widget) => ({
      page: widget.page === null ? null : widget.page + 1,
      rect: widget.rect ? (widget.rect.map(round) as [number, number, number, number]) : null,
    })),
    ...(field.type === "signature" ? { signed: field.signed } : {}),
  };
}

/**
 * effectiveKind is the form's kind as a filler sees it: XFA whose AcroForm has no field to fill is
 * dynamic even without /NeedsRendering (the viewer draws the XFA; nothing here could be filled).
 */
function effectiveKind(form: PdfForm): FormKind {
  if (form.kind === "xfa-hybrid" && form.fields.length === 0) return "xfa-dynamic";
  return form.kind;
}

/** listForm lists a revision's form: its kind and every terminal field of /AcroForm (text streams and rich text read within one TextBudget). */
export function listForm(view: PdfView, pages: PageTreeShape): FormListing {
  const form = readForm(view, pages);
  const budget = new TextBudget();
  return { form: effectiveKind(form), fields: form.fields.map((field) => listedField(field, plainTextValue(view, field, budget))) };
}
