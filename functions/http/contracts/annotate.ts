import * as z from "zod";
import { defineRoute } from "#http/contract.ts";
import { documentInputSchema } from "#http/contracts/common.ts";
import { pdfFieldValueSchema, pdfFormOptions } from "#http/contracts/pdf-form-fields.ts";

const dimension = z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/)]);

/** annotationFieldSchema is one item of `fields` (docs/api.md, "Annotate"). */
const annotationFieldSchema = z
  .strictObject({
    id: z.string().min(1).max(255).optional().meta({ description: "Targets controls by SuperDoc field id, w:id or Word Tag." }),
    group: z.string().min(1).max(255).optional().meta({ description: "Targets every control whose JSON tag has this group." }),
    type: z.enum(["text", "image", "signature", "table", "checkbox", "repeat"]),
    // One array whose items are rows or records (valueFits checks which the type takes): as two array
    // types, a repeat value failed the rows branch item by item first (0.8 s for 200,000 items, not 0.1 s).
    value: z.union([z.string(), z.boolean(), z.array(z.union([z.array(z.string()), z.record(z.string(), z.string())]))]).meta({
      description:
        "text: the text (tab and newline become a tab and a line break; other control characters, U+FFFE, U+FFFF and unpaired surrogates are refused); image/signature: a PNG, JPEG, GIF, WebP or SVG picture as a base64 data URI or a URL, the format decided by its bytes (WebP is stored as PNG; SVG is sanitised and stored as Word does, with a PNG fallback); table: rows of cell strings (same characters as text); checkbox: true/false; repeat: one object per item of a Word repeating section, mapping an inner control's id or tag to its text.",
    }),
    options: z
      .strictObject({
        keepTextNodeStyles: z.boolean().optional(),
        dimensions: z.strictObject({ width: dimension.optional(), height: dimension.optional() }).optional().meta({ description: "CSS pixels at 96 dpi." }),
        copyRowStyle: z.boolean().optional(),
      })
      .optional(),
  })
  .refine((field) => (field.id === undefined) !== (field.group === undefined), { message: "give exactly one of id or group" })
  .refine((field) => valueFits(field.type, field.value), {
    message:
      "value does not fit type: text, image and signature take a string, table an array of rows of strings, checkbox true or false, repeat an array of objects of strings",
    path: ["value"],
  })
  .superRefine((field, ctx) => {
    // Values are written into <w:t>; XML 1.0 has no way to carry these characters.
    const check = (text: string, path: Array<string | number>) => {
      const issue = xmlTextIssue(text);
      if (issue) ctx.addIssue({ code: "custom", message: issue, path });
    };
    if (typeof field.value === "string") check(field.value, ["value"]);
    else if (Array.isArray(field.value)) {
      for (const [r, row] of field.value.entries()) for (const [c, cell] of Object.entries(row)) check(cell, ["value", r, Array.isArray(row) ? Number(c) : c]);
    }
  })
  .meta({ id: "AnnotationField" });

// Characters XML 1.0 cannot hold: C0 controls other than tab, newline and carriage return,
// U+FFFE/U+FFFF, and unpaired surrogates (the u flag reads a lone surrogate as one code point).
const XML_INVALID = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/** xmlTextIssue describes the first character of a value a DOCX cannot hold, or returns undefined. */
function xmlTextIssue(text: string): string | undefined {
  const match = XML_INVALID.exec(text);
  if (!match) return undefined;
  const code = match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  return `contains U+${code} at position ${match.index}; text may hold tab, newline and carriage return but no other control characters, U+FFFE, U+FFFF or unpaired surrogates`;
}

function valueFits(type: string, value: unknown): boolean {
  if (type === "table") return Array.isArray(value) && value.every((row) => Array.isArray(row));
  if (type === "repeat") return Array.isArray(value) && value.every((item) => item !== null && typeof item === "object" && !Array.isArray(item));
  if (type === "checkbox") return value === true || value === false || value === "true" || value === "false";
  return typeof value === "string";
}

/** annotateRequestSchema is the body of POST /v1/annotate. */
const annotateRequestSchema = z
  .strictObject({
    document: documentInputSchema,
    fields: z.array(z.union([annotationFieldSchema, pdfFieldValueSchema])).meta({
      description:
        "A DOCX template's controls (AnnotationField), or a PDF form's fields by qualified name (PdfFieldValue); one kind per request, the document's.",
    }),
    ...pdfFormOptions,
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          "Values for the template's {{tags}}: {{name}}, dotted paths ({{customer.address.city}}), loops over arrays ({{#items}}...{{/items}} repeats the paragraphs, table rows or list items between the tags; loops nest), sections ({{#paid}}...{{/paid}}) and inverted sections ({{^paid}}...{{/paid}}). Paths only, no expressions. Every tag needs a value (send false or [] to leave a section out): a missing one is 422 DATA_MISSING listing each path. Text fields that name a {{placeholder}} join the top level.",
        example: { customer: { name: "Ada Lovelace" }, items: [{ name: "Widget", qty: 2 }], paid: true },
      }),
  })
  .meta({ id: "AnnotateRequest" });

/** dataTagSchema is one {{tag}} of a template with the tags inside it (a loop or section). */
const dataTagSchema: z.ZodType<{ name: string; kind: "value" | "section" | "inverted"; children?: unknown[] }> = z
  .object({
    name: z.string(),
    kind: z.enum(["value", "section", "inverted"]),
    get children() {
      return z.array(dataTagSchema).optional();
    },
  })
  .meta({ id: "DataTag" });

/** annotateRoute: POST /v1/annotate?to=docx|pdf. */
export const annotateRoute = defineRoute({
  name: "annotate",
  async: true,
  method: "POST",
  path: "/v1/annotate",
  auth: true,
  idempotent: true,
  streaming: true, // a filled DOCX or its PDF may outgrow Lambda's 6 MB buffered limit
  tag: "Annotate",
  summary: "Fill a DOCX template or a PDF form",
  description:
    "Fills Word content controls (by SuperDoc field id, w:id or Tag, or by group) and {{id}} placeholders. Answers a data URI of the DOCX, or of a PDF with to=pdf. With a PDF form, fills its fields by qualified name ({ name, value }) with an appearance stream per widget (Signet's fonts, any script), optionally flattens them (flatten) and drops a hybrid form's XFA (dropXfa); the answer is the PDF, as an incremental update of the input, so earlier signatures stay valid (docs/api.md, PDF forms). A template with more content controls or XML elements than the configured limits (default 2,000 controls, 200,000 elements, 10,000 elements inside controls) is refused with 413 PAYLOAD_TOO_LARGE; so is, with data, one whose {{#sections}} nest deeper than 32 or that has more than 2,000 {{tags}}, and a request whose table rows, repeat items and data loop iterations together pass 10,000.",
  query: z.strictObject({ to: z.enum(["docx", "pdf"]).default("docx").meta({ description: "Output format." }) }),
  body: {
    kind: "json",
    schema: annotateRequestSchema,
    example: {
      document: { url: "https://example.com/template.docx" },
      fields: [
        { id: "customer-name", type: "text", value: "Ada Lovelace" },
        { group: "company", type: "text", value: "Analytical Engines Ltd" },
        { id: "logo", type: "image", value: "data:image/png;base64,iVBORw0KGgo...", options: { dimensions: { width: 120 } } },
        { id: "items", type: "table", value: [["Widget", "2", "10.00"]], options: { copyRowStyle: true } },
        { id: "agree", type: "checkbox", value: "true" },
      ],
    },
  },
  success: {
    description: "The filled document as a data URI.",
    contentType: "application/json",
    schema: z.object({ document: z.object({ base64: z.string(), contentType: z.string() }) }).meta({ id: "AnnotateResponse" }),
  },
  errors: [
    "INVALID_DOCUMENT",
    "ENCRYPTED_DOCUMENT",
    "WRONG_PASSWORD",
    "FIELD_NOT_FOUND",
    "FIELD_TYPE_MISMATCH",
    "FIELD_READ_ONLY",
    "INVALID_FIELD_VALUE",
    "XFA_FORM",
    "WOULD_INVALIDATE_SIGNATURES",
    "DATA_MISSING",
    "INVALID_IMAGE",
    "PAYLOAD_TOO_LARGE",
    "IMAGE_TOO_LARGE",
    "FETCH_FAILED",
    "CONVERSION_TIMEOUT",
    "CONVERSION_FAILED",
    "RATE_LIMIT_ERROR",
  ],
});

/** docxFieldsSchema is the DOCX answer of POST /v1/annotate/fields (unchanged since SuperDoc conformance). */
const docxFieldsSchema = z
  .object({
    fields: z.array(
      z.object({
        ids: z.array(z.string()),
        group: z.string().nullable(),
        alias: z.string().nullable(),
        kind: z.enum(["text", "block", "table", "checkbox", "picture", "repeat"]),
        location: z.object({ part: z.string(), index: z.number().int() }),
      }),
    ),
    placeholders: z.array(z.string()),
    tags: z.array(dataTagSchema).meta({
      description: "The {{tags}} `data` fills, with their loop and section structure: a section's children are read from each item of its array.",
    }),
  })
  .meta({ id: "AnnotateDocxFields" });

/** pdfFieldSchema is one terminal field of a PDF form (docs/api.md, "PDF forms"). */
const pdfFieldSchema = z
  .object({
    name: z.string().meta({ description: "Fully qualified name (parent names joined with dots): what fields[].name of a fill takes." }),
    type: z.enum(["text", "checkbox", "radio", "pushbutton", "combo", "list", "signature", "unknown"]),
    value: z
      .union([z.string(), z.array(z.string())])
      .nullable()
      .meta({
        description:
          "Text (a value held in a text stream, or only as rich text /RV, as plain text; null when it inflates beyond 1 MiB), the chosen export value (Off: a button that is off), several for a multi-select list, or null.",
      }),
    options: z
      .array(z.object({ value: z.string(), label: z.string() }))
      .meta({ description: "A combo's or list's choices (export value and the text shown); a check box's or radio group's on-states." }),
    flags: z.object({
      readOnly: z.boolean(),
      required: z.boolean(),
      multiline: z.boolean(),
      comb: z.boolean(),
      multiSelect: z.boolean(),
      maxLength: z.number().int().nullable(),
    }),
    widgets: z.array(
      z.object({
        page: z.number().int().nullable().meta({ description: "1-based page; null when no page lists the widget." }),
        rect: z.array(z.number()).length(4).nullable().meta({ description: "[left, bottom, right, top] in points." }),
      }),
    ),
    signed: z.boolean().optional().meta({ description: "Signature fields: whether it holds a signature." }),
  })
  .meta({ id: "PdfFormField" });

/** pdfFieldsSchema is the PDF answer of POST /v1/annotate/fields. */
const pdfFieldsSchema = z
  .object({
    form: z.enum(["none", "acroform", "xfa-hybrid", "xfa-dynamic"]).meta({
      description: "none: no form; acroform; xfa-hybrid: XFA beside an AcroForm (filled with dropXfa: true); xfa-dynamic: XFA alone, which Signet cannot fill.",
    }),
    fields: z.array(pdfFieldSchema),
  })
  .meta({ id: "AnnotatePdfFields" });

/** annotateFieldsRoute: POST /v1/annotate/fields lists the fields of a template. */
export const annotateFieldsRoute = defineRoute({
  name: "annotate-fields",
  method: "POST",
  path: "/v1/annotate/fields",
  auth: true,
  idempotent: true,
  tag: "Annotate",
  summary: "List a template's or a PDF form's fields",
  description:
    "Lists every content control Signet can fill, with the ids it answers to, its group, alias, kind and location. The XML limits of POST /v1/annotate apply, and its template limits ({{#sections}} nested at most 32 deep, at most 2,000 {{tags}}): 413 PAYLOAD_TOO_LARGE.",
  body: { kind: "json", schema: z.strictObject({ document: documentInputSchema }).meta({ id: "AnnotateFieldsRequest" }) },
  success: {
    description:
      "The fields found: a DOCX template's controls, placeholders and tags, or a PDF's form and its fields (told apart by `form`, which only the PDF answer has).",
    contentType: "application/json",
    schema: z.union([docxFieldsSchema, pdfFieldsSchema]).meta({ id: "AnnotateFieldsResponse" }),
  },
  errors: ["INVALID_DOCUMENT", "ENCRYPTED_DOCUMENT", "WRONG_PASSWORD", "PAYLOAD_TOO_LARGE", "FETCH_FAILED"],
});
