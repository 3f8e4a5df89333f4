import * as z from "zod";
import { defineRoute } from "#http/contract.ts";

/** uploadGrantSchema is the answer of POST /v1/uploads. */
const uploadGrantSchema = z
  .object({
    upload: z.string().meta({
      description: "The reference to send as document.upload (sign, annotate, annotate/fields, verify) or ?upload= (convert).",
      example: "upl_t4x2k1_Qm9vbXNoYWthbGFrYTEyMw",
    }),
    url: z.string().meta({ description: "Where to POST the file (multipart/form-data)." }),
    fields: z.record(z.string(), z.string()).meta({ description: "Form fields to send, in this order, before the `file` part." }),
    expiresAt: z.iso.datetime().meta({ description: "The POST is refused after this time." }),
    maxBytes: z.number().int().meta({ description: "The largest file the POST accepts; S3 refuses anything larger." }),
  })
  .meta({ id: "UploadGrant" });

/** uploadsRoute: POST /v1/uploads. */
export const uploadsRoute = defineRoute({
  name: "uploads",
  method: "POST",
  path: "/v1/uploads",
  auth: true,
  tag: "Uploads",
  summary: "Prepare a large document upload",
  description: [
    "On AWS a request body may carry about 3.4 MB of document as base64 JSON (about 4.5 MB as a multipart file), because",
    "the gateway and Lambda cap an invocation at 6 MB. For anything larger (up to the 25 MB document limit), ask for an upload:",
    "POST the file to `url` as multipart/form-data with every member of `fields` as a form field and the file last, in a part",
    'named `file`, before `expiresAt`. Then send `document: { "upload": "<upload>" }` to sign, annotate, annotate/fields or',
    "verify, or call convert with `?upload=<upload>` and no body. Only the API key that asked for an upload can use it; it is",
    "deleted after the first successful request that uses it, and a reference is refused one hour after it was issued.",
    "Uploaded files left unused are removed within a day.",
  ].join(" "),
  body: { kind: "none" },
  success: { description: "Where and how to upload, and the reference to use afterwards.", contentType: "application/json", schema: uploadGrantSchema },
  errors: ["SERVICE_UNAVAILABLE", "RATE_LIMIT_ERROR"],
});
