import * as z from "zod";
import { defineRoute } from "#http/contract.ts";
import { documentInputSchema } from "#http/contracts/common.ts";
import { documentOutputSchema } from "#http/contracts/sign.ts";

const text = (description: string) => z.string().max(32_768).nullable().optional().meta({ description });
const date = (description: string) => z.iso.datetime({ offset: true }).nullable().optional().meta({ description });

/** metadataSetSchema is the `set` of a metadata write: a value replaces, null removes, a missing key is kept. */
const metadataSetSchema = z
  .strictObject({
    title: text("Info /Title and XMP dc:title."),
    author: text("Info /Author and XMP dc:creator."),
    subject: text("Info /Subject and XMP dc:description."),
    keywords: text("Info /Keywords and XMP pdf:Keywords."),
    creator: text("Info /Creator and XMP xmp:CreatorTool (the application that made the original)."),
    producer: text("Info /Producer and XMP pdf:Producer."),
    creationDate: date("Info /CreationDate and XMP xmp:CreateDate, ISO 8601."),
    modDate: date("Info /ModDate and XMP xmp:ModifyDate, ISO 8601; default the time of the write."),
    custom: z
      .record(z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, "a key of letters, digits, _ . -, starting with a letter"), z.string().max(32_768).nullable())
      .optional()
      .meta({ description: "Custom Info keys (such as ContractId); null removes one." }),
  })
  .meta({ id: "MetadataSet" });

/** metadataRequestSchema is the body of POST /v1/metadata. */
const metadataRequestSchema = z
  .strictObject({
    document: documentInputSchema,
    set: metadataSetSchema.optional().meta({ description: "The changes to write; without set (and xmp) the answer reads the metadata." }),
    xmp: z
      .string()
      .min(1)
      .max(1_048_576)
      .optional()
      .meta({ description: "A whole XMP packet to store instead of the one Signet writes from the Info entries (well-formed XML, no DTD)." }),
    dropSignatures: z
      .boolean()
      .default(false)
      .meta({ description: "On a signed PDF, remove its signatures when the write would break them instead of answering 409." }),
  })
  .meta({ id: "MetadataRequest" });

const nullableText = z.string().nullable();

/** pdfMetadataSchema is what a PDF says about itself. */
const pdfMetadataSchema = z
  .object({
    title: nullableText,
    author: nullableText,
    subject: nullableText,
    keywords: nullableText,
    creator: nullableText,
    producer: nullableText,
    creationDate: nullableText.meta({ description: "ISO 8601 when the PDF date parses, else as written." }),
    modDate: nullableText,
    custom: z.record(z.string(), z.string()).meta({ description: "Info keys beyond the standard ones." }),
    xmp: nullableText.meta({ description: "The XMP packet (the catalog's /Metadata) as text, or null." }),
  })
  .meta({ id: "PdfMetadata" });

/** metadataRoute: POST /v1/metadata. */
export const metadataRoute = defineRoute({
  name: "metadata",
  async: true,
  method: "POST",
  path: "/v1/metadata",
  auth: true,
  idempotent: true,
  streaming: true, // a write answers the whole PDF
  tag: "PDF tools",
  summary: "Read or write a PDF's metadata",
  description:
    "Without `set` or `xmp`: answers the document information (title, author, subject, keywords, creator, producer, dates, custom Info keys) and the XMP packet. With them: writes the Info dictionary and an XMP packet kept in step (dc:title, dc:creator, dc:description, pdf:Keywords, pdf:Producer, xmp:CreatorTool, xmp:CreateDate, xmp:ModifyDate; other XMP properties of the PDF kept) and answers the PDF. A signed PDF gets an incremental update its signatures permit (verify and pyHanko still call them valid); when pyHanko would refuse it (an existing XMP packet that is not well-formed XML), 409 WOULD_INVALIDATE_SIGNATURES unless `dropSignatures`. An encrypted PDF opens with `document.password`; a write keeps it encrypted with its own key (and needs the owner password, or permissions that allow changes).",
  body: {
    kind: "json",
    schema: metadataRequestSchema,
    example: {
      document: { url: "https://example.com/contract.pdf" },
      set: { title: "Master services agreement", author: "Ada Lovelace", keywords: "contract, 2026", custom: { ContractId: "C-42" } },
    },
  },
  success: {
    description: "The metadata read; after a write also the PDF, whether it was an incremental update, and the signatures removed.",
    contentType: "application/json",
    schema: z
      .object({
        metadata: pdfMetadataSchema,
        document: documentOutputSchema.optional(),
        incremental: z.boolean().optional().meta({ description: "The write was appended to the input (a signed PDF); else the PDF was written whole." }),
        droppedSignatures: z.array(z.string()).optional(),
      })
      .meta({ id: "MetadataResponse" }),
  },
  errors: ["INVALID_DOCUMENT", "ENCRYPTED_DOCUMENT", "WRONG_PASSWORD", "WOULD_INVALIDATE_SIGNATURES", "PAYLOAD_TOO_LARGE", "FETCH_FAILED", "RATE_LIMIT_ERROR"],
});
