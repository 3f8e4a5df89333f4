import * as z from "zod";
import { defineRoute } from "#http/contract.ts";
import { documentInputSchema } from "#http/contracts/common.ts";

const dimension = z.union([z.number().positive(), z.string().regex(/^\d+(\.\d+)?$/)]);

/** annotationFieldSchema is one item of `fields` (SPEC 3). */
export const annotationFieldSchema = z
  .strictObject({
    id: z.string().min(1).max(255).optional().meta({ description: "Targets controls by SuperDoc field id, w:id or Word Tag." }),
    group: z.string().min(1).max(255).optional().meta({ description: "Targets every control whose JSON tag has this group." }),
    type: z.enum(["text", "image", "signature", "table", "checkbox"]),
    value: z
      .union([z.string(), z.boolean(), z.array(z.array(z.string()))])
      .meta({ description: "text: the text; image/signature: a data URI or URL; table: rows of cell strings; checkbox: true/false." }),
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
    message: "value does not fit type: text, image and signature take a string, table an array of rows of strings, checkbox true or false",
    path: ["value"],
  })
  .meta({ id: "AnnotationField" });

function valueFits(type: string, value: unknown): boolean {
  if (type === "table") return Array.isArray(value);
  if (type === "checkbox") return value === true || value === false || value === "true" || value === "false";
  return typeof value === "string";
}

/** AnnotationField is a validated field. */
export type AnnotationField = z.output<typeof annotationFieldSchema>;

/** annotateRequestSchema is the body of POST /v1/annotate. */
export const annotateRequestSchema = z
  .strictObject({ document: documentInputSchema, fields: z.array(annotationFieldSchema) })
  .meta({ id: "AnnotateRequest" });

/** annotateRoute: POST /v1/annotate?to=docx|pdf. */
export const annotateRoute = defineRoute({
  name: "annotate",
  method: "POST",
  path: "/v1/annotate",
  auth: true,
  tag: "Annotate",
  summary: "Fill a DOCX template",
  description:
    "Fills Word content controls (by SuperDoc field id, w:id or Tag, or by group) and {{id}} placeholders. Answers a data URI of the DOCX, or of a PDF with to=pdf.",
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
  errors: ["INVALID_DOCUMENT", "ENCRYPTED_DOCUMENT", "FIELD_NOT_FOUND", "FIELD_TYPE_MISMATCH", "INVALID_IMAGE", "PAYLOAD_TOO_LARGE", "FETCH_FAILED", "CONVERSION_TIMEOUT", "RATE_LIMIT_ERROR"],
});

/** annotateFieldsRoute: POST /v1/annotate/fields lists the fields of a template. */
export const annotateFieldsRoute = defineRoute({
  name: "annotate-fields",
  method: "POST",
  path: "/v1/annotate/fields",
  auth: true,
  tag: "Annotate",
  summary: "List a template's fields",
  description: "Lists every content control Signet can fill, with the ids it answers to, its group, alias, kind and location.",
  body: { kind: "json", schema: z.strictObject({ document: documentInputSchema }).meta({ id: "AnnotateFieldsRequest" }) },
  success: {
    description: "The fields found.",
    contentType: "application/json",
    schema: z
      .object({
        fields: z.array(
          z.object({
            ids: z.array(z.string()),
            group: z.string().nullable(),
            alias: z.string().nullable(),
            kind: z.enum(["text", "block", "table", "checkbox", "picture"]),
            location: z.object({ part: z.string(), index: z.number().int() }),
          }),
        ),
        placeholders: z.array(z.string()),
      })
      .meta({ id: "AnnotateFieldsResponse" }),
  },
  errors: ["INVALID_DOCUMENT", "ENCRYPTED_DOCUMENT", "PAYLOAD_TOO_LARGE", "FETCH_FAILED"],
});
