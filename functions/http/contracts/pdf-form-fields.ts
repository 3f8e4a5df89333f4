import * as z from "zod";

// The members that fill a PDF form, shared by annotate and sign (docs/api.md, "PDF forms").

/** pdfFieldValueSchema is one item of `fields` for a PDF form: a field by qualified name (docs/api.md, "PDF forms"). */
export const pdfFieldValueSchema = z
  .strictObject({
    name: z.string().min(1).max(4096).meta({ description: "The field's fully qualified name, as POST /v1/annotate/fields lists it." }),
    value: z.union([z.string().max(100_000), z.boolean(), z.array(z.string().max(100_000)).max(10_000)]).meta({
      description:
        "text: the text (newlines only in a multiline field; at most maxLength characters); checkbox: true, false or one of its states; radio: one of its states (Off: none); combo: one of its options (any text when editable); list: an option, or several for a multi-select list.",
    }),
  })
  .meta({ id: "PdfFieldValue" });

/** pdfFormOptions are the members a PDF fill adds beside `fields` (annotate and sign). */
export const pdfFormOptions = {
  flatten: z
    .union([z.boolean(), z.array(z.string().min(1).max(4096)).max(10_000)])
    .optional()
    .meta({
      description:
        "PDF forms: true burns every field but signature fields into the page; a list of names only those. Refused on a signed PDF (409 WOULD_INVALIDATE_SIGNATURES).",
    }),
  dropXfa: z
    .boolean()
    .optional()
    .meta({ description: "PDF forms: fill a hybrid XFA form's AcroForm and remove its XFA (without it a hybrid form is 422 XFA_FORM)." }),
};
