import * as z from "zod";
import { defineRoute } from "#http/contract.ts";

/** convertRoute: POST /v1/convert?from=docx[&to=pdf][&pdfa=2b], multipart with a `file` part. */
export const convertRoute = defineRoute({
  name: "convert",
  method: "POST",
  path: "/v1/convert",
  auth: true,
  tag: "Convert",
  summary: "Convert an office document",
  description:
    "Converts the uploaded file with LibreOffice: docx, doc, odt, rtf to PDF (optionally PDF/A-2b); md and html to DOCX (to=docx). Answers the file itself.",
  query: z.strictObject({
    from: z.enum(["docx", "doc", "odt", "rtf", "md", "html"]).meta({ description: "Format of the uploaded file." }),
    to: z.enum(["pdf", "docx"]).default("pdf").meta({ description: "Output format." }),
    pdfa: z.enum(["2b"]).optional().meta({ description: "Export PDF/A-2b." }),
  }),
  body: { kind: "multipart", description: "multipart/form-data with exactly one file part named `file`." },
  success: { description: "The converted file.", contentType: "application/pdf" },
  errors: ["INVALID_DOCUMENT", "ENCRYPTED_DOCUMENT", "PAYLOAD_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE", "CONVERSION_TIMEOUT", "RATE_LIMIT_ERROR", "SERVICE_UNAVAILABLE"],
});
