import * as z from "zod";
import "zod-openapi";
import { errorCodes } from "#domain/shared/errors.ts";
import { awsLimitsText } from "#http/aws-limits.ts";

/** documentInputSchema is the `document` member of sign, annotate, verify and the PDF tools (docs/api.md, "Sign and verify"). */
export const documentInputSchema = z
  .strictObject({
    base64: z.string().min(1).optional().meta({ description: "The document, base64-encoded; a data URI (data:...;base64,...) is accepted too." }),
    url: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "An https URL the document is fetched from (no credentials, public addresses only); the same 25 MB document limit applies." }),
    upload: z
      .string()
      .min(1)
      .optional()
      .meta({ description: "A reference from POST /v1/uploads whose file was uploaded; use it for documents above about 3.4 MB on AWS." }),
    password: z.string().min(1).max(127).optional().meta({
      description:
        'The password of an encrypted PDF (user or owner password; docs/api.md, "Passwords"). Not needed for a PDF with only an owner password. Never logged, never stored.',
    }),
  })
  .refine((input) => [input.base64, input.url, input.upload].filter((value) => value !== undefined).length === 1, {
    message: "give exactly one of document.base64, document.url or document.upload",
  })
  .meta({ id: "DocumentInput", description: `The input document: exactly one of base64, url or upload. ${awsLimitsText()}` });

/** errorBodySchema is the layout of every error response (docs/errors.md). */
export const errorBodySchema = z
  .object({
    code: z.enum(errorCodes),
    error: z.string().meta({ description: "The HTTP reason phrase.", example: "Bad Request" }),
    message: z.string().meta({ description: "What went wrong and what to fix." }),
    requestId: z.string(),
    details: z.array(z.object({ field: z.string(), issue: z.string() })).optional(),
  })
  .meta({ id: "Error" });
